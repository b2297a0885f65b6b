//! The CPU stage: read, pre-check, parse and validate a glTF file into a
//! [`GltfDocument`] (no GPU involved).

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};

use super::ktx2::{KTX2_MAGIC, Ktx2Texels, decode_ktx2};
use super::{
    GltfDocument, GltfError, GltfMaterial, GltfMesh, GltfPlacement, GltfTexture, GltfTextureRef,
    LoadProgress, LoadStage, MAX_FILE_BYTES, Progress, TexelData,
};
use crate::heap::SamplerDesc;
use crate::materials::{AlphaMode, UvTransform};

/// Most elements one accessor may hold (2^28: 3 GiB of positions).
const MAX_ACCESSOR_ELEMENTS: usize = 1 << 28;

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

/// What a primitive needs of its material, before images are decoded.
type TextureKey = (usize, bool);

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
        let mut textures: Vec<TextureKey> = Vec::new();
        let mut samplers: Vec<SamplerDesc> = Vec::new();
        let mut sampler_of: HashMap<Option<usize>, usize> = HashMap::new();
        let mut materials: Vec<GltfMaterial> = Vec::new();
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
                        let mut texture_ref =
                            |info: gltf::texture::Texture<'_>,
                             tex_coord: u32,
                             transform: Option<gltf::texture::TextureTransform<'_>>,
                             srgb: bool| {
                                let key = (info.source().index(), srgb);
                                let texture =
                                    textures.iter().position(|k| *k == key).unwrap_or_else(|| {
                                        textures.push(key);
                                        textures.len() - 1
                                    });
                                let gltf_sampler = info.sampler();
                                let sampler =
                                    *sampler_of.entry(gltf_sampler.index()).or_insert_with(|| {
                                        samplers.push(sampler_desc(&gltf_sampler));
                                        samplers.len() - 1
                                    });
                                let (uv_set, transform) = match transform {
                                    Some(t) => (
                                        t.tex_coord().unwrap_or(tex_coord),
                                        UvTransform {
                                            offset: Vec2::from(t.offset()),
                                            rotation: t.rotation(),
                                            scale: Vec2::from(t.scale()),
                                        },
                                    ),
                                    None => (tex_coord, UvTransform::default()),
                                };
                                if uv_set > 1 {
                                    return Err(format!(
                                        "texture uses UV set {uv_set}; only 0 and 1 are supported"
                                    ));
                                }
                                Ok(GltfTextureRef {
                                    texture,
                                    sampler,
                                    uv_set,
                                    transform,
                                })
                            };
                        let m = material_desc(&gltf_material, &mut texture_ref).map_err(|e| {
                            self.invalid(format!("material {:?}: {e}", gltf_material.index()))
                        })?;
                        materials.push(m);
                        material_of.insert(gltf_material.index(), materials.len() - 1);
                        materials.len() - 1
                    }
                };
                triangle_primitives.push((mesh.clone(), primitive, material));
            }
        }

        let textures = self.decode_images(document, &buffers, &textures)?;

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
            samplers,
            materials,
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

/// `gltf::Gltf::from_slice`, with the index checks its validation
/// assumes (a primitive's POSITION accessor is looked up unchecked).
fn parse_json(path: &Path, bytes: &[u8]) -> Result<gltf::Gltf, GltfError> {
    let parse_error = |message: String| GltfError::Parse {
        path: path.to_owned(),
        message,
    };
    let gltf_error = |e: gltf::Error| parse_error(e.to_string());
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = gltf::Glb::from_slice(bytes).map_err(gltf_error)?;
        (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let root: gltf::json::Root =
        gltf::json::deserialize::from_slice(&json).map_err(|e| parse_error(e.to_string()))?;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let position = primitive
                .attributes
                .get(&gltf::json::validation::Checked::Valid(
                    gltf::Semantic::Positions,
                ));
            if position.is_some_and(|a| a.value() >= root.accessors.len()) {
                return Err(parse_error(format!(
                    "mesh {m} primitive {p}: POSITION accessor out of range"
                )));
            }
        }
    }
    let document = gltf::Document::from_json(root).map_err(gltf_error)?;
    Ok(gltf::Gltf { document, blob })
}

fn check_accessor(
    accessor: &gltf::Accessor<'_>,
    name: &str,
    allowed: &[(DataType, Dimensions)],
) -> Result<(), String> {
    let index = accessor.index();
    let kind = (accessor.data_type(), accessor.dimensions());
    if !allowed.contains(&kind) {
        return Err(format!(
            "{name} accessor {index} is {:?} {:?}, expected one of {allowed:?}",
            kind.0, kind.1
        ));
    }
    if accessor.sparse().is_some() {
        return Err(format!("{name} accessor {index} is sparse (not supported)"));
    }
    let count = accessor.count();
    if count == 0 || count > MAX_ACCESSOR_ELEMENTS {
        return Err(format!("{name} accessor {index} has {count} elements"));
    }
    let view = accessor
        .view()
        .ok_or_else(|| format!("{name} accessor {index} has no buffer view"))?;
    let size = accessor.size();
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(format!(
            "{name} accessor {index}: stride {stride} is under its element size {size}"
        ));
    }
    let end = stride
        .checked_mul(count - 1)
        .and_then(|n| n.checked_add(size))
        .and_then(|n| n.checked_add(accessor.offset()));
    match end {
        Some(end) if end <= view.length() => Ok(()),
        _ => Err(format!(
            "{name} accessor {index}: {count} elements of {size} bytes (stride {stride}) at offset {} overrun buffer view {} of {} bytes",
            accessor.offset(),
            view.index(),
            view.length()
        )),
    }
}

fn sampler_desc(sampler: &gltf::texture::Sampler<'_>) -> SamplerDesc {
    use gltf::texture::{MagFilter, MinFilter, WrappingMode};
    let wrap = |mode| match mode {
        WrappingMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
        WrappingMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        WrappingMode::Repeat => wgpu::AddressMode::Repeat,
    };
    let nearest_mag = sampler.mag_filter() == Some(MagFilter::Nearest);
    let (min_filter, mipmap_filter) = match sampler.min_filter() {
        Some(MinFilter::Nearest | MinFilter::NearestMipmapNearest) => {
            (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Nearest)
        }
        Some(MinFilter::NearestMipmapLinear) => {
            (wgpu::FilterMode::Nearest, wgpu::MipmapFilterMode::Linear)
        }
        Some(MinFilter::LinearMipmapNearest) => {
            (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Nearest)
        }
        _ => (wgpu::FilterMode::Linear, wgpu::MipmapFilterMode::Linear),
    };
    SamplerDesc {
        address_u: wrap(sampler.wrap_s()),
        address_v: wrap(sampler.wrap_t()),
        mag_filter: if nearest_mag {
            wgpu::FilterMode::Nearest
        } else {
            wgpu::FilterMode::Linear
        },
        min_filter,
        mipmap_filter,
    }
}

/// The CPU material, textures resolved through `texture_ref(texture,
/// tex_coord, transform, srgb)`.
fn material_desc(
    material: &gltf::Material<'_>,
    texture_ref: &mut impl FnMut(
        gltf::texture::Texture<'_>,
        u32,
        Option<gltf::texture::TextureTransform<'_>>,
        bool,
    ) -> Result<GltfTextureRef, String>,
) -> Result<GltfMaterial, String> {
    let pbr = material.pbr_metallic_roughness();
    let base_color = match pbr.base_color_texture() {
        Some(t) => Some(texture_ref(
            t.texture(),
            t.tex_coord(),
            t.texture_transform(),
            true,
        )?),
        None => None,
    };
    let metallic_roughness = match pbr.metallic_roughness_texture() {
        Some(t) => Some(texture_ref(
            t.texture(),
            t.tex_coord(),
            t.texture_transform(),
            false,
        )?),
        None => None,
    };
    let (normal, normal_scale) = match material.normal_texture() {
        Some(t) => (
            Some(texture_ref(t.texture(), t.tex_coord(), None, false)?),
            t.scale(),
        ),
        None => (None, 1.0),
    };
    let (occlusion, occlusion_strength) = match material.occlusion_texture() {
        Some(t) => (
            Some(texture_ref(t.texture(), t.tex_coord(), None, false)?),
            t.strength(),
        ),
        None => (None, 1.0),
    };
    let emissive = match material.emissive_texture() {
        Some(t) => Some(texture_ref(
            t.texture(),
            t.tex_coord(),
            t.texture_transform(),
            true,
        )?),
        None => None,
    };
    Ok(GltfMaterial {
        index: material.index(),
        base_color_factor: Vec4::from(pbr.base_color_factor()),
        base_color,
        metallic_factor: pbr.metallic_factor(),
        roughness_factor: pbr.roughness_factor(),
        metallic_roughness,
        normal,
        normal_scale,
        occlusion,
        occlusion_strength,
        emissive_factor: Vec3::from(material.emissive_factor()),
        emissive_strength: material.emissive_strength().unwrap_or(1.0),
        emissive,
        alpha_mode: match material.alpha_mode() {
            gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
            gltf::material::AlphaMode::Mask => AlphaMode::Mask {
                cutoff: material.alpha_cutoff().unwrap_or(0.5),
            },
            gltf::material::AlphaMode::Blend => AlphaMode::Blend,
        },
        double_sided: material.double_sided(),
    })
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

pub(super) fn read_capped(path: &Path) -> Result<Vec<u8>, GltfError> {
    let io = |source| GltfError::Io {
        path: path.to_owned(),
        source,
    };
    let bytes = std::fs::metadata(path).map_err(io)?.len();
    if bytes > MAX_FILE_BYTES {
        return Err(GltfError::TooLarge {
            path: path.to_owned(),
            bytes,
        });
    }
    std::fs::read(path).map_err(io)
}

/// Checks a binary glTF's header and chunk table before the parser sees it:
/// `gltf` 1.4 trusts the header's length (a length under 12 underflows into
/// a huge allocation and an abort that no panic handler can catch).
fn check_glb(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 12 {
        return Err(format!(
            "GLB of {} bytes is shorter than its 12-byte header",
            bytes.len()
        ));
    }
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let (version, length) = (word(4), word(8) as usize);
    if version != 2 {
        return Err(format!(
            "GLB version {version} (only glTF 2.0 is supported)"
        ));
    }
    if length < 12 || length > bytes.len() {
        return Err(format!(
            "GLB header claims {length} bytes, file has {}",
            bytes.len()
        ));
    }
    let mut at = 12;
    let mut chunk = 0;
    while at < length {
        if length - at < 8 {
            return Err(format!("GLB chunk {chunk} header runs past the end"));
        }
        let chunk_length = word(at) as usize;
        if chunk_length > length - at - 8 {
            return Err(format!(
                "GLB chunk {chunk} claims {chunk_length} bytes, {} remain",
                length - at - 8
            ));
        }
        if chunk == 0 && word(at + 4) != 0x4E4F_534A {
            return Err("GLB's first chunk is not JSON".into());
        }
        at += 8 + chunk_length;
        chunk += 1;
    }
    if chunk == 0 {
        return Err("GLB has no JSON chunk".into());
    }
    Ok(())
}

/// Decodes standard base64 (the payload of a `data:` URI).
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    };
    let clean: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let v: Vec<u8> = chunk.iter().map(|&c| value(c)).collect::<Option<_>>()?;
        let n = v.iter().fold(0u32, |n, &x| (n << 6) | u32::from(x)) << (6 * (4 - v.len()));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..v.len().saturating_sub(1)]);
    }
    Some(out)
}

/// Strips and fans as a triangle list (glTF's winding rules: every other
/// strip triangle is flipped to keep the front face).
fn triangle_list(mode: gltf::mesh::Mode, indices: &[u32]) -> Vec<u32> {
    let triangles = indices.len().saturating_sub(2);
    match mode {
        gltf::mesh::Mode::TriangleStrip => (0..triangles)
            .flat_map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i + 1], indices[i], indices[i + 2]]
                }
            })
            .collect(),
        gltf::mesh::Mode::TriangleFan => (0..triangles)
            .flat_map(|i| [indices[0], indices[i + 1], indices[i + 2]])
            .collect(),
        _ => indices.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn glb_headers_are_checked_before_parsing() {
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(4u32.to_le_bytes()); // claims 4 bytes: under the header
        assert!(super::check_glb(&glb).unwrap_err().contains("claims 4"));
        assert!(super::check_glb(b"glTF").is_err());
        let mut ok = b"glTF".to_vec();
        ok.extend(2u32.to_le_bytes());
        ok.extend(22u32.to_le_bytes());
        ok.extend(2u32.to_le_bytes());
        ok.extend(0x4E4F_534Au32.to_le_bytes());
        ok.extend(b"{}");
        assert_eq!(super::check_glb(&ok), Ok(()));
        let mut long_chunk = ok.clone();
        long_chunk[12] = 200;
        assert!(
            super::check_glb(&long_chunk)
                .unwrap_err()
                .contains("chunk 0")
        );
        let mut version_one = ok;
        version_one[4] = 1;
        assert!(
            super::check_glb(&version_one)
                .unwrap_err()
                .contains("version 1")
        );
    }

    #[test]
    fn strips_and_fans_become_lists() {
        use gltf::mesh::Mode;
        assert_eq!(
            super::triangle_list(Mode::TriangleStrip, &[0, 1, 2, 3]),
            [0, 1, 2, 2, 1, 3]
        );
        assert_eq!(
            super::triangle_list(Mode::TriangleFan, &[0, 1, 2, 3]),
            [0, 1, 2, 0, 2, 3]
        );
        assert!(super::triangle_list(Mode::TriangleFan, &[0, 1]).is_empty());
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(super::decode_base64("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(super::decode_base64("AAEC").unwrap(), [0, 1, 2]);
        assert!(super::decode_base64("a$==").is_none());
    }
}
