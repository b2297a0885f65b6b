//! The PBR issue's sphere grid: spheres of one base colour with metallic
//! rising down the rows and roughness across the columns, written as a GLB
//! (positions, normals, indices) and loaded through the glTF loader, under
//! the procedural sky and the default sun. Rendered by the bindless renderer
//! at any tier and by the bind-per-draw baseline.

use glam::{Mat4, Vec3};
use unbound::lighting::Environment;
use unbound::loaders::gltf::{GltfDocument, parse_gltf_slice};
use unbound::{Camera, Lighting, RendererConfig, Tier};
use unbound_baseline::BaselineRenderer;

use super::json_edits::glb_file;
use super::{Gpu, Target};

/// Roughness of each column, left to right.
pub const ROUGHNESS: [f32; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// Metallic of each row, top to bottom.
pub const METALLIC: [f32; 3] = [0.0, 0.5, 1.0];
/// The spheres' base colour (linear): a copper-like orange, so that metals
/// tint their reflections and dielectrics do not.
pub const BASE_COLOR: [f32; 4] = [0.95, 0.64, 0.54, 1.0];
/// Pixels per grid cell.
pub const CELL: u32 = 40;
/// Distance between sphere centres (their radius is 0.5).
const SPACING: f32 = 1.2;

/// The grid as a GLB: one sphere mesh per material (a glTF mesh binds its
/// material), one node per sphere.
pub fn sphere_grid_glb() -> Vec<u8> {
    let sphere = unbound::shapes::sphere(48, 24);
    let mut bin = Vec::new();
    for p in &sphere.positions {
        bin.extend(p.iter().flat_map(|v| v.to_le_bytes()));
    }
    let normals_offset = bin.len();
    for n in &sphere.normals {
        bin.extend(n.iter().flat_map(|v| v.to_le_bytes()));
    }
    let indices_offset = bin.len();
    bin.extend(sphere.indices.iter().flat_map(|i| i.to_le_bytes()));
    let vertices = sphere.positions.len();
    let (min, max) = (Vec3::splat(-0.5), Vec3::splat(0.5));

    let mut materials = Vec::new();
    let mut meshes = Vec::new();
    let mut nodes = Vec::new();
    let (columns, rows) = (ROUGHNESS.len() as f32, METALLIC.len() as f32);
    for (row, metallic) in METALLIC.into_iter().enumerate() {
        for (column, roughness) in ROUGHNESS.into_iter().enumerate() {
            let index = materials.len();
            materials.push(serde_json::json!({
                "pbrMetallicRoughness": {
                    "baseColorFactor": BASE_COLOR,
                    "metallicFactor": metallic,
                    "roughnessFactor": roughness,
                }
            }));
            meshes.push(serde_json::json!({
                "primitives": [{
                    "attributes": { "POSITION": 0, "NORMAL": 1 },
                    "indices": 2,
                    "material": index,
                }]
            }));
            let x = (column as f32 - (columns - 1.0) / 2.0) * SPACING;
            let y = ((rows - 1.0) / 2.0 - row as f32) * SPACING;
            nodes.push(serde_json::json!({ "mesh": index, "translation": [x, y, 0.0] }));
        }
    }
    let json = serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": (0..nodes.len()).collect::<Vec<_>>() }],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [
            { "buffer": 0, "byteOffset": 0, "byteLength": normals_offset },
            { "buffer": 0, "byteOffset": normals_offset, "byteLength": indices_offset - normals_offset },
            { "buffer": 0, "byteOffset": indices_offset, "byteLength": bin.len() - indices_offset },
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": vertices, "type": "VEC3",
              "min": min.to_array(), "max": max.to_array() },
            { "bufferView": 1, "componentType": 5126, "count": vertices, "type": "VEC3" },
            { "bufferView": 2, "componentType": 5125, "count": sphere.indices.len(), "type": "SCALAR" },
        ],
    });
    glb_file(json.to_string().as_bytes(), &bin)
}

/// The parsed grid.
pub fn sphere_grid_document() -> GltfDocument {
    parse_gltf_slice(
        &sphere_grid_glb(),
        std::path::Path::new("sphere_grid.glb"),
        None,
    )
    .expect("the generated grid parses")
}

/// Image size: one cell per sphere.
pub fn sphere_grid_size() -> (u32, u32) {
    (CELL * ROUGHNESS.len() as u32, CELL * METALLIC.len() as u32)
}

/// A camera far away and narrow (nearly orthographic) looking down -Z at
/// the grid, one cell per sphere.
pub fn sphere_grid_camera() -> Camera {
    let (width, height) = sphere_grid_size();
    let distance = 40.0;
    let half_height = METALLIC.len() as f32 * SPACING / 2.0;
    Camera {
        position: Vec3::new(0.0, 0.0, distance),
        target: Vec3::ZERO,
        up: Vec3::Y,
        fov_y_radians: 2.0 * (half_height / distance).atan(),
        aspect: width as f32 / height as f32,
        z_near: distance - 5.0,
        z_far: distance + 5.0,
    }
}

/// The default sun, and the sky at radiance scale 1.
pub fn sphere_grid_lighting() -> Lighting {
    Lighting {
        ambient_color: Vec3::ONE,
        ..Lighting::default()
    }
}

/// Puts the grid into `renderer`: the sky, [`sphere_grid_lighting`], the
/// camera and the spheres (what every sphere-grid render starts from).
pub fn set_up_sphere_grid(gpu: &Gpu, renderer: &mut unbound::Renderer) {
    renderer
        .set_environment(&gpu.queue, &Environment::sky())
        .unwrap();
    renderer.set_lighting(&sphere_grid_lighting()).unwrap();
    renderer.set_camera(&sphere_grid_camera()).unwrap();
    sphere_grid_document()
        .upload(renderer, Mat4::IDENTITY, None)
        .unwrap();
}

/// The grid through the bindless renderer at `tier` (`None`: the best).
pub fn render_sphere_grid(gpu: &Gpu, tier: Option<Tier>) -> (image::RgbaImage, Tier) {
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        ..Default::default()
    });
    set_up_sphere_grid(gpu, &mut renderer);
    let (width, height) = sphere_grid_size();
    let target = Target::new(gpu, width, height);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, renderer.tier())
}

/// The grid through the bind-per-draw baseline.
pub fn render_sphere_grid_baseline(gpu: &Gpu) -> image::RgbaImage {
    let mut baseline = BaselineRenderer::from_gltf(
        &gpu.device,
        &gpu.queue,
        &sphere_grid_document(),
        Mat4::IDENTITY,
        &sphere_grid_camera(),
        &sphere_grid_lighting(),
        wgpu::TextureFormat::Rgba8UnormSrgb,
    )
    .unwrap();
    baseline.set_environment(&Environment::sky()).unwrap();
    let (width, height) = sphere_grid_size();
    let target = Target::new(gpu, width, height);
    let (image, _) = target.capture(gpu, |encoder, frame| baseline.render(encoder, frame));
    image
}
