//! The CPU stage: read, pre-check, parse and validate a glTF file into a
//! [`GltfDocument`] (no GPU involved).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use glam::{Mat4, Vec3};
use gltf::accessor::{DataType, Dimensions};

use super::checks::{
    check_accessor, check_glb, decode_base64, parse_json, read_capped, triangle_list,
};
use super::ktx2::{KTX2_MAGIC, Ktx2Texels, decode_ktx2};
use super::materials::{TextureKey, TextureReferences, material_desc};
use super::{
    GltfDocument, GltfError, GltfMaterial, GltfMesh, GltfPlacement, GltfTexture, LoadProgress,
    LoadStage, Progress, TexelData,
};

/// Extensions that change nothing unbound cannot show.
const SUPPORTED_EXTENSIONS: [&str; 2] =
    ["KHR_texture_transform", "KHR_materials_emissive_strength"];

/// Reads and parses `path` (see the module docs).
pub fn parse_gltf(path: &Path) -> Result<GltfDocument, GltfError> {
    parse_path(path, &mut Progress(None))
}

/// [`parse_gltf`] with a progress callback.
pub fn parse_gltf_with(
    path: &Path,
    progress: Option<&mut dyn FnMut(LoadProgress)>,
) -> Result<GltfDocument, GltfError> {
    parse_path(path, &mut Progress(progress))
}

/// Parses a `.gltf` or `.glb` held in memory. `path` names it in errors;
/// relative URIs are resolved against `base_dir`, and refused when it is
/// `None` (data URIs and GLB chunks always work).
pub fn parse_gltf_slice(
    bytes: &[u8],
    path: &Path,
    base_dir: Option<&Path>,
) -> Result<GltfDocument, GltfError> {
    Parser {
        path,
        base_dir,
        progress: &mut Progress(None),
    }
    .parse(bytes)
}

pub(super) fn parse_path(
    path: &Path,
    progress: &mut Progress<'_, '_>,
) -> Result<GltfDocument, GltfError> {
    let bytes = read_capped(path)?;
    Parser {
        path,
        base_dir: Some(path.parent().unwrap_or(Path::new("."))),
        progress,
    }
    .parse(&bytes)
}

struct Parser<'p, 'a, 'b> {
    path: &'p Path,
    base_dir: Option<&'p Path>,
    progress: &'p mut Progress<'a, 'b>,
}

impl Parser<'_, '_, '_> {
    fn invalid(&self, message: String) -> GltfError {
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

    fn load_uri(&self, uri: &str) -> Result<Vec<u8>, GltfError> {
        if let Some(data) = uri.strip_prefix("data:") {
            let (_, payload) = data.split_once(";base64,").ok_or_else(|| {
                let start: String = uri.chars().take(40).collect();
                self.invalid(format!("unsupported data URI {start}"))
            })?;
            return decode_base64(payload)
                .ok_or_else(|| self.invalid("malformed base64 data URI".into()));
        }
        let base = self.base_dir.ok_or_else(|| {
            self.invalid(format!(
                "external URI {uri:?} in a file parsed from memory without a base directory"
            ))
        })?;
        read_capped(&base.join(uri.replace("%20", " "))).map_err(|error| {
            let source = match error {
                GltfError::Io { source, .. } => source,
                other => std::io::Error::other(other.to_string()),
            };
            GltfError::Resource {
                path: self.path.to_owned(),
                uri: uri.chars().take(100).collect(),
                source,
            }
        })
    }

    fn parse(&mut self, bytes: &[u8]) -> Result<GltfDocument, GltfError> {
        if bytes.starts_with(b"glTF") {
            check_glb(bytes).map_err(|message| self.parse_error(message))?;
        }
        let path = self.path;
        let gltf = std::panic::catch_unwind(|| parse_json(path, bytes))
            .map_err(|_| self.parse_error("the parser panicked".into()))??;
        let document = &gltf.document;
        for required in document.extensions_required() {
            if !SUPPORTED_EXTENSIONS.contains(&required) {
                return Err(self.invalid(format!("requires unsupported extension {required}")));
            }
        }
        // `gltf` unwraps these without its validation checking them.
        for (i, image) in document.as_json().images.iter().enumerate() {
            let from_view = image.buffer_view.is_some() && image.mime_type.is_some();
            if image.uri.is_none() && !from_view {
                return Err(self.invalid(format!(
                    "image {i} has neither a URI nor a buffer view with a MIME type"
                )));
            }
        }

        let buffers = self.read_buffers(&gltf)?;
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

        let textures = self.decode_images(document, &buffers, &references.textures)?;

        let total = triangle_primitives.len();
        self.progress.report(LoadStage::Meshes, 0, total);
        let mut meshes = Vec::with_capacity(total);
        let mut meshes_of: HashMap<usize, Vec<usize>> = HashMap::new();
        for (done, (mesh, primitive, material)) in triangle_primitives.into_iter().enumerate() {
            let m = self.read_primitive(&buffers, &mesh, &primitive, material)?;
            meshes_of
                .entry(mesh.index())
                .or_default()
                .push(meshes.len());
            meshes.push(m);
            self.progress.report(LoadStage::Meshes, done + 1, total);
        }

        let placements = self.place(document, &meshes_of)?;
        let mut warnings = Vec::new();
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
            warnings,
        })
    }

    fn read_buffers(&mut self, gltf: &gltf::Gltf) -> Result<Vec<Vec<u8>>, GltfError> {
        let total = gltf.document.buffers().len();
        self.progress.report(LoadStage::Buffers, 0, total);
        let mut buffers = Vec::with_capacity(total);
        for buffer in gltf.document.buffers() {
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => gltf
                    .blob
                    .clone()
                    .ok_or_else(|| self.invalid("GLB buffer without a BIN chunk".into()))?,
                gltf::buffer::Source::Uri(uri) => self.load_uri(uri)?,
            };
            if data.len() < buffer.length() {
                return Err(self.invalid(format!(
                    "buffer {} has {} bytes, declares {}",
                    buffer.index(),
                    data.len(),
                    buffer.length()
                )));
            }
            buffers.push(data);
            self.progress
                .report(LoadStage::Buffers, buffers.len(), total);
        }
        Ok(buffers)
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

    fn decode_images(
        &mut self,
        document: &gltf::Document,
        buffers: &[Vec<u8>],
        keys: &[TextureKey],
    ) -> Result<Vec<GltfTexture>, GltfError> {
        let total = keys.len();
        self.progress.report(LoadStage::Images, 0, total);
        let mut textures: Vec<GltfTexture> = Vec::with_capacity(total);
        // The same image as sRGB colour and as linear data: decoded once.
        let mut decoded: HashMap<usize, (u32, u32, Ktx2Texels)> = HashMap::new();
        for &(index, srgb) in keys {
            let image = document.images().nth(index).expect("validated index");
            let (width, height, texels) = match decoded.get(&index) {
                Some(d) => d.clone(),
                None => {
                    let encoded = match image.source() {
                        gltf::image::Source::View { view, .. } => {
                            let data = &buffers[view.buffer().index()];
                            data[view.offset()..view.offset() + view.length()].to_vec()
                        }
                        gltf::image::Source::Uri { uri, .. } => self.load_uri(uri)?,
                    };
                    let d = decode_image(&encoded)
                        .map_err(|e| self.invalid(format!("image {index}: {e}")))?;
                    decoded.insert(index, d.clone());
                    d
                }
            };
            let data = match texels {
                Ktx2Texels::Rgba8(rgba) => TexelData::Rgba8(rgba),
                Ktx2Texels::Bc {
                    unorm,
                    srgb: srgb_format,
                    levels,
                } => TexelData::Compressed {
                    format: if srgb {
                        srgb_format.unwrap_or(unorm)
                    } else {
                        unorm
                    },
                    levels,
                },
            };
            textures.push(GltfTexture {
                name: image.name().map(str::to_owned),
                image: index,
                width,
                height,
                srgb,
                data,
            });
            self.progress
                .report(LoadStage::Images, textures.len(), total);
        }
        Ok(textures)
    }

    fn read_primitive(
        &self,
        buffers: &[Vec<u8>],
        mesh: &gltf::Mesh<'_>,
        primitive: &gltf::Primitive<'_>,
        material: usize,
    ) -> Result<GltfMesh, GltfError> {
        let reader = primitive.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
        let read = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let positions: Vec<[f32; 3]> = reader.read_positions()?.collect();
            let normals: Option<Vec<[f32; 3]>> = reader.read_normals().map(Iterator::collect);
            let tangents: Option<Vec<[f32; 4]>> = reader.read_tangents().map(Iterator::collect);
            let uv0: Option<Vec<[f32; 2]>> =
                reader.read_tex_coords(0).map(|t| t.into_f32().collect());
            let uv1: Option<Vec<[f32; 2]>> =
                reader.read_tex_coords(1).map(|t| t.into_f32().collect());
            let indices: Vec<u32> = match reader.read_indices() {
                Some(indices) => indices.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            Some((positions, normals, tangents, uv0, uv1, indices))
        }))
        .map_err(|_| self.invalid(format!("mesh {}: malformed accessor", mesh.index())))?;
        let (positions, normals, tangents, uv0, uv1, indices) = read.ok_or_else(|| {
            self.invalid(format!(
                "mesh {}: primitive without readable positions",
                mesh.index()
            ))
        })?;
        let mut out = GltfMesh {
            mesh: mesh.index(),
            primitive: primitive.index(),
            material,
            indices: triangle_list(primitive.mode(), &indices),
            positions,
            normals,
            tangents,
            uv0,
            uv1,
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

    /// Nodes of the default scene, iteratively, each visited once.
    fn place(
        &self,
        document: &gltf::Document,
        meshes_of: &HashMap<usize, Vec<usize>>,
    ) -> Result<Vec<GltfPlacement>, GltfError> {
        let scene = document
            .default_scene()
            .or_else(|| document.scenes().next())
            .ok_or_else(|| self.invalid("no scene".into()))?;
        let mut stack: Vec<(gltf::Node<'_>, Mat4)> =
            scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
        let mut visited = vec![false; document.nodes().count()];
        let mut placements = Vec::new();
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
                for &m in meshes_of.get(&mesh.index()).into_iter().flatten() {
                    placements.push(GltfPlacement {
                        mesh: m,
                        node: node.index(),
                        scene_from_object: world,
                    });
                }
            }
            stack.extend(node.children().map(|child| (child, world)));
        }
        Ok(placements)
    }
}

/// PNG, JPEG or KTX2 to (width, height, texels); PNG and JPEG as RGBA8.
fn decode_image(encoded: &[u8]) -> Result<(u32, u32, Ktx2Texels), String> {
    if encoded.starts_with(&KTX2_MAGIC) {
        return decode_ktx2(encoded);
    }
    let decoded = image::load_from_memory(encoded)
        .map_err(|e| e.to_string())?
        .to_rgba8();
    Ok((
        decoded.width(),
        decoded.height(),
        Ktx2Texels::Rgba8(decoded.into_raw()),
    ))
}
