//! glTF 2.0 into the heap, arena and tables: `.gltf` with external or
//! embedded (data URI) buffers and images, and `.glb`.
//!
//! Scope so far: triangle primitives of the default scene (strips and fans
//! converted to lists; points and lines skipped and reported once), node hierarchies (walked iteratively with a
//! visited set, so cycles cannot overflow the stack), metallic-roughness
//! materials with normal, occlusion and emissive textures,
//! `KHR_texture_transform`, `KHR_materials_emissive_strength`, both UV sets,
//! samplers (deduplicated by the heap), sRGB colour and linear data
//! textures, PNG and JPEG images, KTX2 with 8-bit RGB/RGBA formats
//! (uncompressed or zstd; RGB expanded to RGBA, mips regenerated on the GPU).
//! Other material extensions degrade to the core material and are listed
//! once in a warning. Files are read with a size cap and parsed
//! from a slice; accessors go through `MeshData::validate` (index ranges,
//! finite values) before anything is uploaded; parser panics are contained as
//! a last resort. Every failure names the file and the problem, and leaves
//! the renderer as it was before the failed call, except for textures,
//! materials and meshes already added, which are removed again.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::geometry::MeshData;
use crate::handles::{MaterialHandle, MeshHandle, ObjectHandle, SamplerHandle, TextureHandle};
use crate::heap::{Mips, SamplerDesc, TextureDesc};
use crate::materials::{AlphaMode, Material, TextureRef, UvTransform};
use crate::renderer::{Error, Renderer};
use crate::scene::ObjectDesc;

/// Largest file (and external buffer or image) read.
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Why a glTF file could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// Reading a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file is larger than [`MAX_FILE_BYTES`].
    #[error("{path}: {bytes} bytes exceeds the {MAX_FILE_BYTES}-byte limit")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: u64,
    },
    /// The glTF parser rejected (or panicked on) the file.
    #[error("{path}: invalid glTF: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// The file is valid glTF but inconsistent or unsupported.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The problem.
        message: String,
    },
    /// unbound refused the content.
    #[error("{path}: {source}")]
    Renderer {
        /// The file.
        path: PathBuf,
        /// The renderer's error.
        source: Box<Error>,
    },
}

/// What [`load_gltf`] added to the renderer.
#[derive(Debug, Default)]
pub struct GltfScene {
    /// Objects, one per primitive instance.
    pub objects: Vec<ObjectHandle>,
    /// What each object was created from, to place more copies.
    pub placements: Vec<ObjectDesc>,
    /// Meshes, one per triangle primitive.
    pub meshes: Vec<MeshHandle>,
    /// Materials.
    pub materials: Vec<MaterialHandle>,
    /// Textures.
    pub textures: Vec<TextureHandle>,
    /// World-space bounds of the objects (min, max).
    pub bounds: (Vec3, Vec3),
    /// Things skipped or degraded, each once.
    pub warnings: Vec<String>,
}

fn read_capped(path: &Path) -> Result<Vec<u8>, GltfError> {
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

/// The first bytes of every KTX2 file.
const KTX2_MAGIC: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Level 0 of a KTX2 texture as tightly packed RGBA8: 8-bit RGB and RGBA
/// formats (UNORM or sRGB; the glTF usage decides how it is sampled),
/// uncompressed or zstd-supercompressed. Mips are regenerated on the GPU.
/// Block-compressed and Basis Universal textures are refused with a clear
/// error for now.
fn decode_ktx2(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), String> {
    use std::io::Read;
    let reader = ktx2::Reader::new(bytes).map_err(|e| format!("invalid KTX2: {e:?}"))?;
    let header = reader.header();
    if header.pixel_depth > 1 || header.face_count != 1 || header.layer_count > 1 {
        return Err("KTX2 3D, cube and array textures are not supported".into());
    }
    let format = header
        .format
        .ok_or("KTX2 without a Vulkan format (Basis Universal) is not supported")?;
    let channels = match format {
        ktx2::Format::R8G8B8_UNORM | ktx2::Format::R8G8B8_SRGB => 3,
        ktx2::Format::R8G8B8A8_UNORM | ktx2::Format::R8G8B8A8_SRGB => 4,
        other => {
            return Err(format!(
                "KTX2 format {other:?} is not supported (8-bit RGB and RGBA only)"
            ));
        }
    };
    let (width, height) = (header.pixel_width, header.pixel_height);
    let expected = u64::from(width) * u64::from(height) * channels;
    if width == 0 || height == 0 || expected > MAX_FILE_BYTES {
        return Err(format!("KTX2 size {width}x{height} is out of range"));
    }
    let level = reader.levels().next().ok_or("KTX2 without mip levels")?;
    let data = match header.supercompression_scheme {
        None => level.data.to_vec(),
        Some(ktx2::SupercompressionScheme::Zstandard) => {
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(level.data)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            let mut out = Vec::with_capacity(expected as usize);
            decoder
                .by_ref()
                .take(expected + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("KTX2 zstd: {e}"))?;
            out
        }
        Some(other) => return Err(format!("KTX2 supercompression {other:?} is not supported")),
    };
    if data.len() as u64 != expected {
        return Err(format!(
            "KTX2 level 0 holds {} bytes, {width}x{height} needs {expected}",
            data.len()
        ));
    }
    let rgba = if channels == 4 {
        data
    } else {
        data.chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    Ok((width, height, rgba))
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

/// Loads the default scene of `path` into `renderer`, placed by
/// `world_from_scene`.
pub fn load_gltf(
    renderer: &mut Renderer,
    path: &Path,
    world_from_scene: Mat4,
) -> Result<GltfScene, GltfError> {
    let mut scene = GltfScene::default();
    let result = load_into(renderer, path, world_from_scene, &mut scene);
    if result.is_err() {
        // Leave the renderer as it was.
        for &object in &scene.objects {
            renderer.remove_object(object).ok();
        }
        for &material in &scene.materials {
            renderer.remove_material(material).ok();
        }
        for &mesh in &scene.meshes {
            renderer.remove_mesh(mesh).ok();
        }
        for &texture in &scene.textures {
            renderer.remove_texture(texture).ok();
        }
    }
    result.map(|()| scene)
}

fn load_into(
    renderer: &mut Renderer,
    path: &Path,
    world_from_scene: Mat4,
    scene: &mut GltfScene,
) -> Result<(), GltfError> {
    let invalid = |message: String| GltfError::Invalid {
        path: path.to_owned(),
        message,
    };
    let refused = |error: Error| GltfError::Renderer {
        path: path.to_owned(),
        source: Box::new(error),
    };
    let bytes = read_capped(path)?;
    if bytes.starts_with(b"glTF") {
        check_glb(&bytes).map_err(|message| GltfError::Parse {
            path: path.to_owned(),
            message,
        })?;
    }
    let gltf = std::panic::catch_unwind(|| gltf::Gltf::from_slice(&bytes))
        .map_err(|_| GltfError::Parse {
            path: path.to_owned(),
            message: "the parser panicked".into(),
        })?
        .map_err(|e| GltfError::Parse {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    let document = &gltf.document;
    for required in document.extensions_required() {
        if !matches!(
            required,
            "KHR_texture_transform" | "KHR_materials_emissive_strength"
        ) {
            return Err(invalid(format!(
                "requires unsupported extension {required}"
            )));
        }
    }
    let base = path.parent().unwrap_or(Path::new("."));
    let load_uri = |uri: &str| -> Result<Vec<u8>, GltfError> {
        if let Some(data) = uri.strip_prefix("data:") {
            let (_, payload) = data.split_once(";base64,").ok_or_else(|| {
                invalid(format!(
                    "unsupported data URI {}",
                    &uri[..uri.len().min(40)]
                ))
            })?;
            return decode_base64(payload)
                .ok_or_else(|| invalid("malformed base64 data URI".into()));
        }
        let relative = uri.replace("%20", " ");
        read_capped(&base.join(relative))
    };

    // Buffers.
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf
                .blob
                .clone()
                .ok_or_else(|| invalid("GLB buffer without a BIN chunk".into()))?,
            gltf::buffer::Source::Uri(uri) => load_uri(uri)?,
        };
        if data.len() < buffer.length() {
            return Err(invalid(format!(
                "buffer {} has {} bytes, declares {}",
                buffer.index(),
                data.len(),
                buffer.length()
            )));
        }
        buffers.push(data);
    }
    let view_bytes = |view: &gltf::buffer::View<'_>| -> Result<Vec<u8>, GltfError> {
        let data = &buffers[view.buffer().index()];
        let end = view
            .offset()
            .checked_add(view.length())
            .filter(|&e| e <= data.len());
        let end =
            end.ok_or_else(|| invalid(format!("buffer view {} out of its buffer", view.index())))?;
        Ok(data[view.offset()..end].to_vec())
    };

    // Textures, created on first use as sRGB colour or linear data.
    let mut textures: HashMap<(usize, bool), TextureHandle> = HashMap::new();
    let mut samplers: HashMap<Option<usize>, SamplerHandle> = HashMap::new();
    let mut texture_ref = |renderer: &mut Renderer,
                           scene: &mut GltfScene,
                           info: gltf::texture::Texture<'_>,
                           tex_coord: u32,
                           transform: Option<gltf::texture::TextureTransform<'_>>,
                           srgb: bool|
     -> Result<TextureRef, GltfError> {
        let image = info.source();
        let key = (image.index(), srgb);
        let texture = match textures.get(&key) {
            Some(&t) => t,
            None => {
                let encoded = match image.source() {
                    gltf::image::Source::View { view, .. } => view_bytes(&view)?,
                    gltf::image::Source::Uri { uri, .. } => load_uri(uri)?,
                };
                let (width, height, rgba) = if encoded.starts_with(&KTX2_MAGIC) {
                    decode_ktx2(&encoded)
                        .map_err(|e| invalid(format!("image {}: {e}", image.index())))?
                } else {
                    let decoded = image::load_from_memory(&encoded)
                        .map_err(|e| invalid(format!("image {}: {e}", image.index())))?
                        .to_rgba8();
                    (decoded.width(), decoded.height(), decoded.into_raw())
                };
                let handle = renderer
                    .add_texture(&TextureDesc {
                        label: image.name(),
                        width,
                        height,
                        format: if srgb {
                            wgpu::TextureFormat::Rgba8UnormSrgb
                        } else {
                            wgpu::TextureFormat::Rgba8Unorm
                        },
                        data: &rgba,
                        mips: Mips::Generate,
                    })
                    .map_err(refused)?;
                scene.textures.push(handle);
                textures.insert(key, handle);
                handle
            }
        };
        let gltf_sampler = info.sampler();
        let sampler = match samplers.get(&gltf_sampler.index()) {
            Some(&s) => s,
            None => {
                use gltf::texture::{MagFilter, MinFilter, WrappingMode};
                let wrap = |mode| match mode {
                    WrappingMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
                    WrappingMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
                    WrappingMode::Repeat => wgpu::AddressMode::Repeat,
                };
                let nearest_mag = gltf_sampler.mag_filter() == Some(MagFilter::Nearest);
                let (min, mip) = match gltf_sampler.min_filter() {
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
                let handle = renderer
                    .add_sampler(&SamplerDesc {
                        address_u: wrap(gltf_sampler.wrap_s()),
                        address_v: wrap(gltf_sampler.wrap_t()),
                        mag_filter: if nearest_mag {
                            wgpu::FilterMode::Nearest
                        } else {
                            wgpu::FilterMode::Linear
                        },
                        min_filter: min,
                        mipmap_filter: mip,
                    })
                    .map_err(refused)?;
                samplers.insert(gltf_sampler.index(), handle);
                handle
            }
        };
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
            return Err(invalid(format!(
                "texture uses UV set {uv_set}; only 0 and 1 are supported"
            )));
        }
        Ok(TextureRef {
            texture,
            sampler,
            uv_set,
            transform,
        })
    };

    // Materials (index None: glTF's default material).
    let mut materials: HashMap<Option<usize>, MaterialHandle> = HashMap::new();
    let mut material_for = |renderer: &mut Renderer,
                            scene: &mut GltfScene,
                            material: gltf::Material<'_>|
     -> Result<MaterialHandle, GltfError> {
        if let Some(&m) = materials.get(&material.index()) {
            return Ok(m);
        }
        let pbr = material.pbr_metallic_roughness();
        let base_color = match pbr.base_color_texture() {
            Some(t) => Some(texture_ref(
                renderer,
                scene,
                t.texture(),
                t.tex_coord(),
                t.texture_transform(),
                true,
            )?),
            None => None,
        };
        let metallic_roughness = match pbr.metallic_roughness_texture() {
            Some(t) => Some(texture_ref(
                renderer,
                scene,
                t.texture(),
                t.tex_coord(),
                t.texture_transform(),
                false,
            )?),
            None => None,
        };
        let (normal, normal_scale) = match material.normal_texture() {
            Some(t) => (
                Some(texture_ref(
                    renderer,
                    scene,
                    t.texture(),
                    t.tex_coord(),
                    None,
                    false,
                )?),
                t.scale(),
            ),
            None => (None, 1.0),
        };
        let (occlusion, occlusion_strength) = match material.occlusion_texture() {
            Some(t) => (
                Some(texture_ref(
                    renderer,
                    scene,
                    t.texture(),
                    t.tex_coord(),
                    None,
                    false,
                )?),
                t.strength(),
            ),
            None => (None, 1.0),
        };
        let emissive = match material.emissive_texture() {
            Some(t) => Some(texture_ref(
                renderer,
                scene,
                t.texture(),
                t.tex_coord(),
                t.texture_transform(),
                true,
            )?),
            None => None,
        };
        let handle = renderer
            .add_material(&Material {
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
            .map_err(refused)?;
        scene.materials.push(handle);
        materials.insert(material.index(), handle);
        Ok(handle)
    };

    // Meshes: one unbound mesh per triangle primitive.
    let mut primitives: HashMap<usize, Vec<(MeshHandle, MaterialHandle)>> = HashMap::new();
    let mut skipped_modes = false;
    for mesh in document.meshes() {
        let mut list = Vec::new();
        for primitive in mesh.primitives() {
            let mode = primitive.mode();
            if !matches!(
                mode,
                gltf::mesh::Mode::Triangles
                    | gltf::mesh::Mode::TriangleStrip
                    | gltf::mesh::Mode::TriangleFan
            ) {
                skipped_modes = true;
                continue;
            }
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
            .map_err(|_| invalid(format!("mesh {}: malformed accessor", mesh.index())))?;
            let (positions, normals, tangents, uv0, uv1, indices) = read.ok_or_else(|| {
                invalid(format!(
                    "mesh {}: primitive without positions",
                    mesh.index()
                ))
            })?;
            let indices = triangle_list(mode, &indices);
            let handle = renderer
                .add_mesh(&MeshData {
                    positions: &positions,
                    normals: normals.as_deref(),
                    tangents: tangents.as_deref(),
                    uv0: uv0.as_deref(),
                    uv1: uv1.as_deref(),
                    indices: &indices,
                })
                .map_err(refused)?;
            scene.meshes.push(handle);
            let material = material_for(renderer, scene, primitive.material())?;
            list.push((handle, material));
        }
        primitives.insert(mesh.index(), list);
    }
    if skipped_modes {
        scene
            .warnings
            .push("point and line primitives were skipped".into());
    }

    // Nodes of the default scene, iteratively, each visited once.
    let default_scene = document
        .default_scene()
        .or_else(|| document.scenes().next())
        .ok_or_else(|| invalid("no scene".into()))?;
    let mut stack: Vec<(gltf::Node<'_>, Mat4)> = default_scene
        .nodes()
        .map(|n| (n, world_from_scene))
        .collect();
    let mut visited = vec![false; document.nodes().count()];
    let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    while let Some((node, parent)) = stack.pop() {
        if std::mem::replace(&mut visited[node.index()], true) {
            return Err(invalid(format!(
                "node {} is reached twice (cycle or shared child)",
                node.index()
            )));
        }
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        if let Some(mesh) = node.mesh() {
            for &(mesh_handle, material) in primitives.get(&mesh.index()).into_iter().flatten() {
                let desc = ObjectDesc {
                    mesh: mesh_handle,
                    material,
                    world_from_object: world,
                };
                let object = renderer.add_object(&desc).map_err(refused)?;
                scene.objects.push(object);
                scene.placements.push(desc);
                let (_, bounds) = renderer.arena().resolve(mesh_handle).expect("just added");
                for corner in 0..8 {
                    let pick = |bit: u32, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
                    let local = Vec3::new(
                        pick(1, bounds.min.x, bounds.max.x),
                        pick(2, bounds.min.y, bounds.max.y),
                        pick(4, bounds.min.z, bounds.max.z),
                    );
                    let p = world.transform_point3(local);
                    min = min.min(p);
                    max = max.max(p);
                }
            }
        }
        stack.extend(node.children().map(|child| (child, world)));
    }
    scene.bounds = (min, max);
    let unsupported: Vec<&str> = document
        .extensions_used()
        .filter(|e| {
            !matches!(
                *e,
                "KHR_texture_transform" | "KHR_materials_emissive_strength"
            )
        })
        .collect();
    if !unsupported.is_empty() {
        scene.warnings.push(format!(
            "extensions degraded to the core material: {}",
            unsupported.join(", ")
        ));
    }
    Ok(())
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
    fn malformed_ktx2_is_an_error() {
        let mut bytes = super::KTX2_MAGIC.to_vec();
        bytes.extend([0u8; 40]);
        assert!(super::decode_ktx2(&bytes).is_err());
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
