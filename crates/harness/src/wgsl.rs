//! WGSL as naga lays it out, for the tests that keep host twins and shaders
//! in step (`tests/layouts.rs`, the demo's present pass): struct sizes and
//! member offsets, array strides, and the value of every `const`.
//!
//! Test support: every function panics with naga's message on WGSL it
//! cannot parse.

use std::collections::BTreeMap;

/// A parsed WGSL module with naga's layout of its types.
#[derive(Debug)]
pub struct WgslModule {
    label: String,
    module: naga::Module,
    layouter: naga::proc::Layouter,
}

/// A WGSL struct as naga lays it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructLayout {
    /// Size in bytes (the struct's span).
    pub size: u32,
    /// Alignment in bytes.
    pub alignment: u32,
    /// Members in declaration order.
    pub members: Vec<MemberLayout>,
}

/// One member of a [`StructLayout`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    /// The member's name.
    pub name: String,
    /// Byte offset from the start of the struct.
    pub offset: u32,
    /// Size in bytes of the member's type.
    pub size: u32,
}

impl StructLayout {
    /// (name, offset) of every member, in order.
    pub fn offsets(&self) -> Vec<(&str, usize)> {
        self.members
            .iter()
            .map(|m| (m.name.as_str(), m.offset as usize))
            .collect()
    }

    /// The offset of member `name`.
    pub fn offset_of(&self, name: &str) -> usize {
        self.members
            .iter()
            .find(|m| m.name == name)
            .unwrap_or_else(|| panic!("no member {name}"))
            .offset as usize
    }
}

impl WgslModule {
    /// Parses `source` (`label` names it in panics).
    pub fn parse(label: &str, source: &str) -> Self {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{label}: {}", e.emit_to_string(source)));
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .unwrap_or_else(|e| panic!("{label}: layout: {e}"));
        Self {
            label: label.to_owned(),
            module,
            layouter,
        }
    }

    /// The naga module.
    pub fn module(&self) -> &naga::Module {
        &self.module
    }

    /// The layout of struct `name`.
    pub fn struct_layout(&self, name: &str) -> StructLayout {
        let (handle, ty) = self
            .module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("{}: no struct {name}", self.label));
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("{}: {name} is not a struct", self.label);
        };
        StructLayout {
            size: *span,
            alignment: self.layouter[handle].alignment.round_up(1),
            members: members
                .iter()
                .map(|m| MemberLayout {
                    name: m.name.clone().unwrap_or_default(),
                    offset: m.offset,
                    size: self.layouter[m.ty].size,
                })
                .collect(),
        }
    }

    /// The element stride of global `name`, a runtime-sized array or a
    /// struct ending in one.
    pub fn global_array_stride(&self, name: &str) -> u32 {
        let (_, global) = self
            .module
            .global_variables
            .iter()
            .find(|(_, g)| g.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("{}: no global {name}", self.label));
        let mut ty = &self.module.types[global.ty].inner;
        if let naga::TypeInner::Struct { members, .. } = ty {
            let last = members.last().expect("a struct has members");
            ty = &self.module.types[last.ty].inner;
        }
        match ty {
            naga::TypeInner::Array { stride, .. } => *stride,
            other => panic!("{}: {name} is not an array: {other:?}", self.label),
        }
    }

    /// Every named `const` of the module with its value: integer constants
    /// (`u32`, `i32`, abstract) as `i64`; any other type panics, naming it.
    pub fn constants(&self) -> BTreeMap<String, i64> {
        self.module
            .constants
            .iter()
            .filter_map(|(_, c)| Some((c.name.clone()?, c)))
            .map(|(name, c)| {
                let value = match self.module.global_expressions[c.init] {
                    naga::Expression::Literal(naga::Literal::U32(v)) => i64::from(v),
                    naga::Expression::Literal(naga::Literal::I32(v)) => i64::from(v),
                    naga::Expression::Literal(naga::Literal::AbstractInt(v)) => v,
                    ref other => panic!("{}: const {name} = {other:?}", self.label),
                };
                (name, value)
            })
            .collect()
    }
}
