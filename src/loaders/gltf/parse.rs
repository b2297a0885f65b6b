//! The CPU stage: read, pre-check, parse and validate a glTF file into a
//! [`GltfDocument`] (no GPU involved).

use std::collections::HashMap;
use std::path::Path;

use glam::{Mat4, Vec2};

use super::buffers::Buffers;
use super::checks::{check_glb, parse_json};
use super::extensions::{ignored_warnings, without_uncompressed_data};
use super::files::read_scene_file;
use super::lights::node_light;
use super::limits::{Limit, json_counts};
use super::materials::{TextureReferences, material_desc};
use super::stage::Parser;
use super::weights::WeightRepairs;
use super::{
    GltfDocument, GltfError, GltfLight, GltfMaterial, GltfMesh, GltfPlacement, GltfTextureRef,
    LoadProgress, LoadStage, ParseOptions, Progress,
};
use crate::animation::MeshDeformation;
use crate::geometry::GeneratedTangents;
use crate::materials::UvTransform;

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

impl Parser<'_, '_, '_> {
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
        let mut buffers = self.read_buffers(document, gltf.blob.take())?;
        self.decode_meshopt(document, &mut buffers)?;
        self.check_views(document, &buffers)?;
        #[cfg(feature = "draco")]
        self.decode_draco(document, &mut buffers)?;

        // Triangle primitives, their accessors checked, and their materials.
        let mut references = TextureReferences {
            image_count: document.images().len(),
            ..TextureReferences::default()
        };
        let mut materials: Vec<GltfMaterial> = Vec::new();
        let mut material_indices = Vec::new();
        let mut material_of: HashMap<Option<usize>, usize> = HashMap::new();
        let mut triangle_primitives = Vec::new();
        let mut skipped_modes = false;
        let mut skipped_draco = 0;
        let quantized = document
            .extensions_used()
            .any(|e| e == "KHR_mesh_quantization");
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
                if !cfg!(feature = "draco") && without_uncompressed_data(&primitive) {
                    skipped_draco += 1;
                    continue;
                }
                self.check_primitive(&primitive, quantized).map_err(|e| {
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

        let textures = self.decode_images(
            document,
            &buffers,
            &references.textures,
            &references.fallbacks,
            &mut warnings,
        )?;

        let (meshes, deformations, meshes_of, repairs) =
            self.read_meshes(&buffers, triangle_primitives, &materials, quantized)?;

        warnings.append(&mut references.warnings);
        let (placements, lights) = self.place(document, &buffers, &meshes_of, &mut warnings)?;
        warnings.extend(repairs.warnings());
        let parts = (&placements[..], &meshes[..], deformations);
        let animation = self.animation_data(document, &buffers, parts, &mut warnings)?;
        if skipped_modes {
            warnings.push("point and line primitives were skipped".into());
        }
        if skipped_draco > 0 {
            warnings.push(format!(
                "KHR_draco_mesh_compression: {skipped_draco} primitive(s) without uncompressed data not drawn"
            ));
        }
        warnings.extend(ignored_warnings(document.extensions_used()));
        Ok(GltfDocument {
            path: self.path.to_owned(),
            textures,
            samplers: references.samplers,
            materials,
            material_indices,
            meshes,
            placements,
            lights,
            animation,
            warnings,
        })
    }

    /// Reads every triangle primitive (with its material index) as a mesh
    /// and its side stream; also the meshes of each glTF mesh, and the
    /// skin weights repaired.
    #[allow(clippy::type_complexity, reason = "one caller, which names each part")]
    fn read_meshes(
        &mut self,
        buffers: &Buffers,
        triangle_primitives: Vec<(gltf::Mesh<'_>, gltf::Primitive<'_>, usize)>,
        materials: &[GltfMaterial],
        quantized: bool,
    ) -> Result<
        (
            Vec<GltfMesh>,
            Vec<MeshDeformation>,
            HashMap<usize, Vec<usize>>,
            WeightRepairs,
        ),
        GltfError,
    > {
        let total = triangle_primitives.len();
        self.progress.report(LoadStage::Meshes, 0, total);
        let mut meshes = Vec::with_capacity(total);
        let mut deformations = Vec::with_capacity(total);
        let mut repairs = WeightRepairs::default();
        let mut meshes_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (done, (mesh, primitive, material)) in triangle_primitives.into_iter().enumerate() {
            let normal = materials[material].normal;
            let (m, deformation) = self.read_mesh(
                buffers,
                (&mesh, &primitive, material, normal),
                quantized,
                &mut repairs,
            )?;
            deformations.push(deformation);
            meshes_of
                .entry(mesh.index())
                .or_default()
                .push(meshes.len());
            meshes.push(m);
            self.progress.report(LoadStage::Meshes, done + 1, total);
        }

        Ok((meshes, deformations, meshes_of, repairs))
    }

    /// One triangle primitive as a mesh (its tangents generated where its
    /// material's `normal` texture needs them) and its side stream.
    fn read_mesh(
        &mut self,
        buffers: &Buffers,
        (mesh, primitive, material, normal): (
            &gltf::Mesh<'_>,
            &gltf::Primitive<'_>,
            usize,
            Option<GltfTextureRef>,
        ),
        quantized: bool,
        repairs: &mut WeightRepairs,
    ) -> Result<(GltfMesh, MeshDeformation), GltfError> {
        let mut m = self.read_primitive(buffers, mesh, primitive, material)?;
        let mut deformation =
            self.read_deformation(buffers, (mesh, primitive), quantized, repairs)?;
        m.tangent_uv_set = normal.map(|n| n.uv_set);
        let transform = normal.map(|n| n.transform).unwrap_or_default();
        self.generate_tangents(&mut m, &mut deformation, transform)?;
        Ok((m, deformation))
    }

    /// MikkTSpace tangents for a normal-mapped mesh without them that has
    /// the UV set they follow (see [`GltfMesh::tangents`]), its index count
    /// checked against [`Limit::TangentIndices`] first; the vertices
    /// splitting adds are charged to [`Limit::Vertices`].
    /// The UVs they follow are those the normal texture samples: after its
    /// `transform` (`KHR_texture_transform`, where gltfpack folds UV
    /// dequantisation in).
    fn generate_tangents(
        &mut self,
        mesh: &mut GltfMesh,
        deformation: &mut MeshDeformation,
        transform: UvTransform,
    ) -> Result<(), GltfError> {
        let generates = mesh.tangents.is_none()
            && mesh
                .tangent_uv_set
                .is_some_and(|set| mesh.as_mesh_data().uv_set(set).is_some());
        if !generates {
            return Ok(());
        }
        self.budget
            .check(Limit::TangentIndices, mesh.indices.len() as u64)?;
        let generated = if transform == UvTransform::default() {
            mesh.as_mesh_data().generated_tangents()
        } else {
            let set = match mesh.tangent_uv_set {
                Some(0) => &mut mesh.uv0,
                _ => &mut mesh.uv1,
            };
            let original = set.clone();
            if let Some(uvs) = set.as_mut() {
                for uv in uvs.iter_mut() {
                    *uv = transform.apply(Vec2::from(*uv)).to_array();
                }
            }
            let generated = mesh.as_mesh_data().generated_tangents();
            *match mesh.tangent_uv_set {
                Some(0) => &mut mesh.uv0,
                _ => &mut mesh.uv1,
            } = original;
            generated
        };
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
        let sources: Vec<usize> = generated.sources().collect();
        *deformation = deformation.gathered(&sources);
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
        buffers: &Buffers,
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
                let instances = self.node_instances(document, &node)?;
                let count = instances.as_ref().map_or(1, |i| i.count as u64);
                self.budget
                    .charge_placements(count, primitives.len() as u64)?;
                let place = |placements: &mut Vec<GltfPlacement>, transform: Mat4| {
                    for &m in primitives {
                        placements.push(GltfPlacement {
                            mesh: m,
                            node: node.index(),
                            scene_from_object: transform,
                        });
                    }
                };
                match instances {
                    None => place(&mut placements, world),
                    Some(instances) => {
                        for accessor in instances.accessors() {
                            self.budget
                                .check(Limit::AccessorElements, accessor.count() as u64)?;
                        }
                        // Charged above, so bounded: one allocation, not a
                        // doubling series, for a million instances.
                        placements.reserve(instances.count.saturating_mul(primitives.len()));
                        let each = |local: Mat4| {
                            place(&mut placements, world * local);
                            Ok(())
                        };
                        instances
                            .for_each(buffers, each)
                            .map_err(|e| self.invalid(e))?;
                    }
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
