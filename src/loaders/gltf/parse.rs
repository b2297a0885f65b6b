//! The CPU stage: read, pre-check, parse and validate a glTF file into a
//! [`GltfDocument`] (no GPU involved).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::buffers::Buffers;
use super::checks::{check_accessor, check_glb, parse_json, triangle_list};
use super::files::{SceneFiles, read_scene_file};
use super::images::MissingImages;
use super::lights::node_light;
use super::limits::{Budget, Limit, json_counts};
use super::materials::{TextureReferences, material_desc};
use super::{
    GltfDocument, GltfError, GltfLight, GltfMaterial, GltfMesh, GltfPlacement, LoadProgress,
    LoadStage, ParseOptions, Progress,
};
use crate::geometry::GeneratedTangents;

/// Extensions that change nothing unbound cannot show.
const SUPPORTED_EXTENSIONS: [&str; 3] = [
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "KHR_lights_punctual",
];

/// Reads and parses `path` with the default [`ParseOptions`] (see the
/// module docs).
pub fn parse_gltf(path: &Path) -> Result<GltfDocument, GltfError> {
    parse_path(path, &ParseOptions::default(), &mut Progress(None))
}

/// [`parse_gltf`] with a progress callback.
pub fn parse_gltf_with(
    path: &Path,
    progress: Option<&mut dyn FnMut(LoadProgress)>,
) -> Result<GltfDocument, GltfError> {
    parse_path(path, &ParseOptions::default(), &mut Progress(progress))
}

/// [`parse_gltf`] with a file access policy, limits, what becomes of
/// unusable images, and a progress callback.
pub fn parse_gltf_with_options(
    path: &Path,
    options: &ParseOptions,
    progress: Option<&mut dyn FnMut(LoadProgress)>,
) -> Result<GltfDocument, GltfError> {
    parse_path(path, options, &mut Progress(progress))
}

/// Parses a `.gltf` or `.glb` held in memory with the default
/// [`ParseOptions`]. `path` names it in errors; relative URIs are resolved
/// against `base_dir` (the scene folder of [`FileAccess`]), and refused when
/// it is `None` (data URIs and GLB chunks always work).
///
/// [`FileAccess`]: super::FileAccess
pub fn parse_gltf_slice(
    bytes: &[u8],
    path: &Path,
    base_dir: Option<&Path>,
) -> Result<GltfDocument, GltfError> {
    parse_gltf_slice_with_options(bytes, path, base_dir, &ParseOptions::default())
}

/// [`parse_gltf_slice`] with a file access policy, limits and what becomes
/// of unusable images.
pub fn parse_gltf_slice_with_options(
    bytes: &[u8],
    path: &Path,
    base_dir: Option<&Path>,
    options: &ParseOptions,
) -> Result<GltfDocument, GltfError> {
    let mut progress = Progress(None);
    let mut parser = Parser::new(path, base_dir, options, &mut progress);
    let (gltf, warnings) = parser.parse_json(bytes)?;
    parser.build(gltf, warnings)
}

pub(super) fn parse_path(
    path: &Path,
    options: &ParseOptions,
    progress: &mut Progress<'_, '_>,
) -> Result<GltfDocument, GltfError> {
    let base_dir = path.parent().unwrap_or(Path::new("."));
    let mut parser = Parser::new(path, Some(base_dir), options, progress);
    // The file's bytes are dropped once parsed (a GLB's BIN chunk is kept).
    let (gltf, warnings) = parser.parse_json(&read_scene_file(path, &parser.budget)?)?;
    parser.build(gltf, warnings)
}

/// One file's CPU stage: what it may read and allocate, and its progress.
pub(super) struct Parser<'p, 'a, 'b> {
    path: &'p Path,
    pub(super) files: SceneFiles<'p>,
    pub(super) budget: Budget,
    pub(super) missing_images: MissingImages,
    pub(super) progress: &'p mut Progress<'a, 'b>,
}

impl<'p, 'a, 'b> Parser<'p, 'a, 'b> {
    fn new(
        path: &'p Path,
        base_dir: Option<&'p Path>,
        options: &'p ParseOptions,
        progress: &'p mut Progress<'a, 'b>,
    ) -> Self {
        Self {
            path,
            files: SceneFiles::new(path, base_dir, &options.file_access),
            budget: Budget::new(options.limits, path.to_owned()),
            missing_images: options.missing_images,
            progress,
        }
    }
}

impl Parser<'_, '_, '_> {
    pub(super) fn invalid(&self, message: String) -> GltfError {
        GltfError::Invalid {
            path: self.path.to_owned(),
            message,
        }
    }

    fn parse_error(&self, message: String) -> GltfError {
        GltfError::Parse {
            path: self.path.to_owned(),
            message,
        }
    }

    /// The document and the warnings of normalising its JSON.
    fn parse_json(&self, bytes: &[u8]) -> Result<(gltf::Gltf, Vec<String>), GltfError> {
        if bytes.starts_with(b"glTF") {
            check_glb(bytes).map_err(|message| self.parse_error(message))?;
        }
        let counts = json_counts(bytes);
        self.budget.check(Limit::JsonObjects, counts.containers)?;
        self.budget.check(Limit::JsonValues, counts.values)?;
        let path = self.path;
        std::panic::catch_unwind(|| parse_json(path, bytes))
            .map_err(|_| self.parse_error("the parser panicked".into()))?
    }

    fn build(
        &mut self,
        mut gltf: gltf::Gltf,
        mut warnings: Vec<String>,
    ) -> Result<GltfDocument, GltfError> {
        let document = &gltf.document;
        for required in document.extensions_required() {
            if !SUPPORTED_EXTENSIONS.contains(&required) {
                return Err(self.invalid(format!("requires unsupported extension {required}")));
            }
        }
        let buffers = self.read_buffers(document, gltf.blob.take())?;
        for view in document.views() {
            let fits = view
                .offset()
                .checked_add(view.length())
                .is_some_and(|end| end <= buffers[view.buffer().index()].len());
            if !fits {
                return Err(self.invalid(format!("buffer view {} out of its buffer", view.index())));
            }
        }

        // Triangle primitives, their accessors checked, and their materials.
        let mut references = TextureReferences::default();
        let mut materials: Vec<GltfMaterial> = Vec::new();
        let mut material_indices = Vec::new();
        let mut material_of: HashMap<Option<usize>, usize> = HashMap::new();
        let mut triangle_primitives = Vec::new();
        let mut skipped_modes = false;
        for mesh in document.meshes() {
            for primitive in mesh.primitives() {
                if !matches!(
                    primitive.mode(),
                    gltf::mesh::Mode::Triangles
                        | gltf::mesh::Mode::TriangleStrip
                        | gltf::mesh::Mode::TriangleFan
                ) {
                    skipped_modes = true;
                    continue;
                }
                self.check_primitive(&primitive).map_err(|e| {
                    self.invalid(format!(
                        "mesh {} primitive {}: {e}",
                        mesh.index(),
                        primitive.index()
                    ))
                })?;
                self.budget.charge_primitive(&primitive)?;
                let gltf_material = primitive.material();
                let material = match material_of.get(&gltf_material.index()) {
                    Some(&m) => m,
                    None => {
                        let m = material_desc(&gltf_material, &mut references).map_err(|e| {
                            self.invalid(format!("material {:?}: {e}", gltf_material.index()))
                        })?;
                        materials.push(m);
                        material_indices.push(gltf_material.index());
                        material_of.insert(gltf_material.index(), materials.len() - 1);
                        materials.len() - 1
                    }
                };
                triangle_primitives.push((mesh.clone(), primitive, material));
            }
        }

        let textures =
            self.decode_images(document, &buffers, &references.textures, &mut warnings)?;

        let total = triangle_primitives.len();
        self.progress.report(LoadStage::Meshes, 0, total);
        let mut meshes = Vec::with_capacity(total);
        let mut meshes_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (done, (mesh, primitive, material)) in triangle_primitives.into_iter().enumerate() {
            let mut m = self.read_primitive(&buffers, &mesh, &primitive, material)?;
            m.tangent_uv_set = materials[material].normal.map(|n| n.uv_set);
            self.generate_tangents(&mut m)?;
            meshes_of
                .entry(mesh.index())
                .or_default()
                .push(meshes.len());
            meshes.push(m);
            self.progress.report(LoadStage::Meshes, done + 1, total);
        }

        let (placements, lights) = self.place(document, &meshes_of, &mut warnings)?;
        if skipped_modes {
            warnings.push("point and line primitives were skipped".into());
        }
        let unsupported: Vec<&str> = document
            .extensions_used()
            .filter(|e| !SUPPORTED_EXTENSIONS.contains(e))
            .collect();
        if !unsupported.is_empty() {
            warnings.push(format!(
                "extensions degraded to the core material: {}",
                unsupported.join(", ")
            ));
        }
        Ok(GltfDocument {
            path: self.path.to_owned(),
            textures,
            samplers: references.samplers,
            materials,
            material_indices,
            meshes,
            placements,
            lights,
            warnings,
        })
    }

    /// Checks every accessor the primitive's reader will touch: types the
    /// reader accepts (it has `unreachable!` for others), no sparse storage,
    /// and count x stride within the buffer view (it computes
    /// `stride * (count - 1)` unchecked).
    fn check_primitive(&self, primitive: &gltf::Primitive<'_>) -> Result<(), String> {
        use DataType::{F32, U8, U16, U32};
        use Dimensions::{Scalar, Vec2, Vec3, Vec4};
        let position = primitive
            .get(&gltf::Semantic::Positions)
            .ok_or("primitive without positions")?;
        check_accessor(&position, "POSITION", &[(F32, Vec3)])?;
        let count = position.count();
        let attributes = [
            (gltf::Semantic::Normals, "NORMAL", &[(F32, Vec3)][..]),
            (gltf::Semantic::Tangents, "TANGENT", &[(F32, Vec4)][..]),
            (
                gltf::Semantic::TexCoords(0),
                "TEXCOORD_0",
                &[(F32, Vec2), (U8, Vec2), (U16, Vec2)][..],
            ),
            (
                gltf::Semantic::TexCoords(1),
                "TEXCOORD_1",
                &[(F32, Vec2), (U8, Vec2), (U16, Vec2)][..],
            ),
            (
                gltf::Semantic::Colors(0),
                "COLOR_0",
                &[
                    (F32, Vec3),
                    (F32, Vec4),
                    (U8, Vec3),
                    (U8, Vec4),
                    (U16, Vec3),
                    (U16, Vec4),
                ][..],
            ),
        ];
        for (semantic, name, allowed) in attributes {
            if let Some(accessor) = primitive.get(&semantic) {
                check_accessor(&accessor, name, allowed)?;
                if accessor.count() != count {
                    return Err(format!(
                        "{name} has {} elements, POSITION has {count}",
                        accessor.count()
                    ));
                }
            }
        }
        if let Some(indices) = primitive.indices() {
            check_accessor(
                &indices,
                "indices",
                &[(U8, Scalar), (U16, Scalar), (U32, Scalar)],
            )?;
        }
        Ok(())
    }

    fn read_primitive(
        &self,
        buffers: &Buffers,
        mesh: &gltf::Mesh<'_>,
        primitive: &gltf::Primitive<'_>,
        material: usize,
    ) -> Result<GltfMesh, GltfError> {
        let reader = primitive.reader(|b| buffers.get(b.index()));
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let positions: Vec<[f32; 3]> = reader.read_positions()?.collect();
            let normals: Option<Vec<[f32; 3]>> = reader.read_normals().map(Iterator::collect);
            let tangents: Option<Vec<[f32; 4]>> = reader.read_tangents().map(Iterator::collect);
            let uv0: Option<Vec<[f32; 2]>> =
                reader.read_tex_coords(0).map(|t| t.into_f32().collect());
            let uv1: Option<Vec<[f32; 2]>> =
                reader.read_tex_coords(1).map(|t| t.into_f32().collect());
            let colors: Option<Vec<[f32; 4]>> =
                reader.read_colors(0).map(|c| c.into_rgba_f32().collect());
            let indices: Vec<u32> = match reader.read_indices() {
                Some(indices) => indices.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            Some((positions, normals, tangents, uv0, uv1, colors, indices))
        }))
        .map_err(|_| self.invalid(format!("mesh {}: malformed accessor", mesh.index())))?;
        let (positions, normals, tangents, uv0, uv1, colors, indices) = read.ok_or_else(|| {
            self.invalid(format!(
                "mesh {}: primitive without readable positions",
                mesh.index()
            ))
        })?;
        let mut out = GltfMesh {
            mesh: mesh.index(),
            primitive: primitive.index(),
            material,
            indices: match primitive.mode() {
                gltf::mesh::Mode::Triangles => indices,
                mode => triangle_list(mode, &indices),
            },
            positions,
            normals,
            tangents,
            uv0,
            uv1,
            colors,
            tangent_uv_set: None,
            bounds: crate::geometry::MeshBounds {
                min: Vec3::ZERO,
                max: Vec3::ZERO,
                center: Vec3::ZERO,
                radius: 0.0,
            },
        };
        let data = out.as_mesh_data();
        data.validate().map_err(|source| GltfError::Geometry {
            path: self.path.to_owned(),
            mesh: mesh.index(),
            primitive: primitive.index(),
            source,
        })?;
        out.bounds = data.bounds();
        Ok(out)
    }

    /// MikkTSpace tangents for a normal-mapped mesh without them that has
    /// the UV set they follow (see [`GltfMesh::tangents`]), its index count
    /// checked against [`Limit::TangentIndices`] first; the vertices
    /// splitting adds are charged to [`Limit::Vertices`].
    fn generate_tangents(&mut self, mesh: &mut GltfMesh) -> Result<(), GltfError> {
        let generates = mesh.tangents.is_none()
            && mesh
                .tangent_uv_set
                .is_some_and(|set| mesh.as_mesh_data().uv_set(set).is_some());
        if !generates {
            return Ok(());
        }
        self.budget
            .check(Limit::TangentIndices, mesh.indices.len() as u64)?;
        let generated = mesh.as_mesh_data().generated_tangents();
        let generated = generated.map_err(|source| GltfError::Geometry {
            path: self.path.to_owned(),
            mesh: mesh.mesh,
            primitive: mesh.primitive,
            source,
        })?;
        let Some(generated) = generated else {
            return Ok(());
        };
        self.budget
            .charge(Limit::Vertices, generated.split_from.len() as u64)?;
        mesh.normals = match mesh.normals.as_deref() {
            Some(normals) => Some(gathered(&generated, normals)),
            // Normals computed after the split would not be smooth across it.
            None if !generated.split_from.is_empty() => {
                let computed = mesh.as_mesh_data().vertex_normals();
                let computed: Vec<[f32; 3]> = computed.iter().map(|n| n.to_array()).collect();
                Some(gathered(&generated, &computed))
            }
            None => None,
        };
        mesh.positions = gathered(&generated, &mesh.positions);
        mesh.uv0 = mesh.uv0.as_deref().map(|uv| gathered(&generated, uv));
        mesh.uv1 = mesh.uv1.as_deref().map(|uv| gathered(&generated, uv));
        mesh.colors = mesh.colors.as_deref().map(|c| gathered(&generated, c));
        mesh.indices = generated.indices;
        mesh.tangents = Some(generated.tangents);
        Ok(())
    }

    /// Nodes of the default scene (else the first), iteratively, each
    /// visited once: their meshes' placements and their lights, each node's
    /// charged to [`Limit::Placements`] before it is made (a node places
    /// every primitive of its mesh). No scene, or one without nodes, places
    /// nothing, with a warning.
    fn place(
        &mut self,
        document: &gltf::Document,
        meshes_of: &HashMap<usize, Vec<usize>>,
        warnings: &mut Vec<String>,
    ) -> Result<(Vec<GltfPlacement>, Vec<GltfLight>), GltfError> {
        let Some(scene) = document
            .default_scene()
            .or_else(|| document.scenes().next())
        else {
            warnings.push("no scene: nothing is placed".into());
            return Ok(Default::default());
        };
        if scene.nodes().next().is_none() {
            warnings.push(format!(
                "scene {} is empty: nothing is placed",
                scene.index()
            ));
            return Ok(Default::default());
        }
        let mut stack: Vec<(gltf::Node<'_>, Mat4)> =
            scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
        let mut visited = vec![false; document.nodes().count()];
        let (mut placements, mut lights) = (Vec::new(), Vec::new());
        while let Some((node, parent)) = stack.pop() {
            if std::mem::replace(&mut visited[node.index()], true) {
                return Err(self.invalid(format!(
                    "node {} is reached twice (cycle or shared child)",
                    node.index()
                )));
            }
            let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
            if !world.is_finite() {
                return Err(
                    self.invalid(format!("node {} has a non-finite transform", node.index()))
                );
            }
            if let Some(mesh) = node.mesh() {
                let primitives = meshes_of.get(&mesh.index()).map_or(&[][..], Vec::as_slice);
                self.budget.charge_placements(1, primitives.len() as u64)?;
                for &m in primitives {
                    placements.push(GltfPlacement {
                        mesh: m,
                        node: node.index(),
                        scene_from_object: world,
                    });
                }
            }
            if let Some(light) = node_light(self.path, &node, &world) {
                self.budget.charge_placements(1, 1)?;
                lights.push(light?);
            }
            stack.extend(node.children().map(|child| (child, world)));
        }
        Ok((placements, lights))
    }
}

/// `values` of a validated mesh over the vertices generating its tangents
/// made.
fn gathered<T: Copy>(generated: &GeneratedTangents, values: &[T]) -> Vec<T> {
    generated
        .gather(values)
        .expect("a validated mesh has one value per vertex")
}
