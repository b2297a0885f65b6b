//! `EXT_mesh_gpu_instancing`: a node's mesh placed once per instance, each
//! instance an object of its own.
//!
//! - `TRANSLATION`, `ROTATION` (a unit quaternion) and `SCALE` are read in
//!   every encoding the extension allows, with `KHR_mesh_quantization`'s
//!   too: floats, and 8- or 16-bit integers (normalised or not; a rotation
//!   only normalised), through `accessors.rs`. A missing attribute is the
//!   identity.
//! - An instance is `node_world × T × R × S`: the node's own transform
//!   (and its parents') applies on top.
//! - Every attribute must have the same count. The count is known, and
//!   charged to [`Limit::Placements`](super::Limit::Placements) with the
//!   mesh's primitives and to
//!   [`Limit::AccessorElements`](super::Limit::AccessorElements) per
//!   attribute, before anything is read or allocated; an accessor longer
//!   than its buffer is an error naming it. Reading allocates once per
//!   attribute, never per instance.

use glam::{Mat4, Quat, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::GltfError;
use super::accessors::read_floats;
use super::buffers::Buffers;
use super::stage::Parser;

/// The extension's name.
pub(super) const EXTENSION: &str = "EXT_mesh_gpu_instancing";

/// A node's instancing attributes, checked but not read yet.
pub(super) struct InstanceAccessors<'a> {
    translation: Option<gltf::Accessor<'a>>,
    rotation: Option<gltf::Accessor<'a>>,
    scale: Option<gltf::Accessor<'a>>,
    /// Instances (every attribute's count).
    pub(super) count: usize,
}

/// The attribute `name` of `node`'s instancing extension, checked: its
/// type, and its component type among those the extension (with
/// `KHR_mesh_quantization`) allows.
fn attribute<'a>(
    document: &'a gltf::Document,
    node: &gltf::Node<'_>,
    attributes: &gltf::json::Value,
    name: &str,
) -> Result<Option<gltf::Accessor<'a>>, String> {
    let Some(value) = attributes.get(name) else {
        return Ok(None);
    };
    let what = format!("node {} {EXTENSION} {name}", node.index());
    let index = value
        .as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| format!("{what}: {value} is not an accessor index"))?;
    let accessor = document
        .accessors()
        .nth(index)
        .ok_or_else(|| format!("{what}: accessor {index} does not exist"))?;
    let dimensions = if name == "ROTATION" {
        Dimensions::Vec4
    } else {
        Dimensions::Vec3
    };
    let integer = matches!(
        accessor.data_type(),
        DataType::I8 | DataType::U8 | DataType::I16 | DataType::U16
    );
    let allowed = match accessor.data_type() {
        DataType::F32 => true,
        // A rotation's integers are normalised signed ones.
        DataType::I8 | DataType::I16 if name == "ROTATION" => accessor.normalized(),
        _ => integer && name != "ROTATION",
    };
    if accessor.dimensions() != dimensions || !allowed {
        return Err(format!(
            "{what}: accessor {index} is {:?} of {:?}{}, which the extension does not allow",
            accessor.dimensions(),
            accessor.data_type(),
            if accessor.normalized() {
                " (normalised)"
            } else {
                ""
            },
        ));
    }
    Ok(Some(accessor))
}

impl Parser<'_, '_, '_> {
    /// `node`'s instancing attributes ([`instance_accessors`]), a bad one
    /// [`GltfError::Invalid`]. (Called by the node walk in `parse.rs`
    /// without an import, so that this file, which reads accessors, is
    /// outside the parser's import cycle.)
    pub(super) fn node_instances<'d>(
        &self,
        document: &'d gltf::Document,
        node: &gltf::Node<'_>,
    ) -> Result<Option<InstanceAccessors<'d>>, GltfError> {
        instance_accessors(document, node).map_err(|e| self.invalid(e))
    }
}

/// `node`'s instancing attributes, if it uses the extension, checked
/// (nothing read): each attribute's encoding and the count they share.
fn instance_accessors<'a>(
    document: &'a gltf::Document,
    node: &gltf::Node<'_>,
) -> Result<Option<InstanceAccessors<'a>>, String> {
    let Some(extension) = node.extension_value(EXTENSION) else {
        return Ok(None);
    };
    let Some(attributes) = extension.get("attributes").filter(|a| a.is_object()) else {
        return Err(format!(
            "node {}: {EXTENSION} has no attributes object",
            node.index()
        ));
    };
    let translation = attribute(document, node, attributes, "TRANSLATION")?;
    let rotation = attribute(document, node, attributes, "ROTATION")?;
    let scale = attribute(document, node, attributes, "SCALE")?;
    let counts: Vec<usize> = [&translation, &rotation, &scale]
        .into_iter()
        .flatten()
        .map(gltf::Accessor::count)
        .collect();
    let Some(&count) = counts.first() else {
        return Err(format!(
            "node {}: {EXTENSION} names no TRANSLATION, ROTATION or SCALE",
            node.index()
        ));
    };
    if counts.iter().any(|&c| c != count) {
        return Err(format!(
            "node {}: {EXTENSION} attributes have different counts {counts:?}",
            node.index()
        ));
    }
    Ok(Some(InstanceAccessors {
        translation,
        rotation,
        scale,
        count,
    }))
}

impl InstanceAccessors<'_> {
    /// The accessors, to charge their elements before reading.
    pub(super) fn accessors(&self) -> impl Iterator<Item = &gltf::Accessor<'_>> {
        [&self.translation, &self.rotation, &self.scale]
            .into_iter()
            .flatten()
    }

    /// Each instance's transform (`T × R × S`), read once per attribute,
    /// into `f` in instance order.
    pub(super) fn for_each(
        &self,
        buffers: &Buffers,
        mut f: impl FnMut(Mat4) -> Result<(), String>,
    ) -> Result<(), String> {
        let read3 = |a: &Option<gltf::Accessor<'_>>| {
            a.as_ref().map(|a| read_floats::<3>(buffers, a)).transpose()
        };
        let translation = read3(&self.translation)?;
        let scale = read3(&self.scale)?;
        let rotation = self
            .rotation
            .as_ref()
            .map(|a| read_floats::<4>(buffers, a))
            .transpose()?;
        for i in 0..self.count {
            let t = translation
                .as_ref()
                .map_or(Vec3::ZERO, |v| Vec3::from(v[i]));
            let s = scale.as_ref().map_or(Vec3::ONE, |v| Vec3::from(v[i]));
            let r = rotation
                .as_ref()
                .map_or(Quat::IDENTITY, |v| Quat::from_array(v[i]).normalize());
            let transform = Mat4::from_scale_rotation_translation(s, r, t);
            if !transform.is_finite() {
                return Err(format!(
                    "{EXTENSION}: instance {i} has a non-finite transform"
                ));
            }
            f(transform)?;
        }
        Ok(())
    }
}
