//! The lit image is glTF's BRDF: a plane with a known normal map under a
//! known sun shows, at chosen pixels, the intensities the CPU twin of the
//! BRDF (`unbound::lighting::brdf`) predicts. Vertex colours (from
//! `MeshData::colors`, and from glTF `COLOR_0` in each of its encodings)
//! multiply the base colour. The ambient reflects through the same BRDF
//! (the fitted albedo's CPU twin predicts it), metals included. Each
//! prediction is a radiance, shown through the CPU twin of the default
//! tone mapping (`common::shown`).

mod common;

use common::*;
use glam::{Vec3, Vec4};
use unbound::lighting::Brdf;
use unbound::{ID_TARGET_FORMAT, Material, ObjectDesc, TextureRef, shapes};

const SIZE: u32 = 64;
const HALF: f32 = 2.0;

/// A normal-map texel's bytes for a tangent-space normal.
fn encode_normal(n: Vec3) -> [u8; 4] {
    let n = n.normalize() * 0.5 + 0.5;
    [n.x, n.y, n.z, 1.0].map(|c| (c * 255.0).round() as u8)
}

/// The shading normal the shader makes of a normal-map texel on a surface
/// facing +Z whose tangent is +X with handedness `w` (scale 1).
fn mapped_normal(texel: [u8; 4], w: f32) -> Vec3 {
    let [x, y, z] = [texel[0], texel[1], texel[2]].map(|b| f32::from(b) / 255.0 * 2.0 - 1.0);
    let (n, t) = (Vec3::Z, Vec3::X);
    let b = n.cross(t) * w;
    (t * x + b * y + n * z).normalize()
}

/// Handedness of the unit quad's tangent (byte 3 of the packed tangent).
fn quad_handedness() -> f32 {
    let vertex = shapes::quad().as_mesh_data().packed().vertices[0];
    let w = (vertex.tangent >> 24) as u8 as i8;
    if w < 0 { -1.0 } else { 1.0 }
}

/// Tolerance of the normal-map test, in bytes of a linear 8-bit target:
/// rounding of the target (½), of the normal's decode and f32 differences
/// between the GPU and the CPU.
const TOLERANCE: u8 = 2;

#[test]
fn normal_mapped_plane_shows_the_intensities_the_cpu_brdf_predicts() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, HALF);
    let camera = camera_framing_plane(HALF);
    let normals = [
        Vec3::Z,
        Vec3::new(0.5, 0.0, 1.0),
        Vec3::new(0.0, 0.6, 1.0),
        Vec3::new(-0.4, -0.3, 1.0),
    ]
    .map(encode_normal);
    let texels = quadrant_texels(8, normals);
    let normal_map = data_texture(&mut renderer, 8, wgpu::TextureFormat::Rgba8Unorm, &texels);
    let sampler = renderer.heap().default_sampler();
    let base_color = Vec4::new(0.8, 0.6, 0.4, 1.0);
    let (metallic, roughness) = (0.3, 0.35);
    let material = renderer
        .add_material(&Material {
            base_color_factor: base_color,
            metallic_factor: metallic,
            roughness_factor: roughness,
            normal: Some(TextureRef::new(normal_map, sampler)),
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
        })
        .unwrap();
    let lighting = unbound::Lighting {
        direction_to_light: Vec3::new(0.35, 0.45, 1.0).normalize(),
        light_color: Vec3::splat(1.6),
        ambient_color: Vec3::splat(0.05),
    };
    renderer.set_lighting(&lighting).unwrap();
    // A linear target: the shaded value is the byte, without sRGB encoding.
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("shading_normal_map", &image);

    let brdf = Brdf {
        base_color: base_color.truncate(),
        metallic,
        roughness,
    };
    let w = quad_handedness();
    let mut predicted = Vec::new();
    for (i, (px, py)) in quadrant_centres(SIZE).into_iter().enumerate() {
        // The pixel centre on the plane z = 0 (framing [-HALF, HALF]^2).
        let scale = 2.0 * HALF / SIZE as f32;
        let p = Vec3::new(
            (px as f32 + 0.5) * scale - HALF,
            HALF - (py as f32 + 0.5) * scale,
            0.0,
        );
        let n = mapped_normal(normals[i], w);
        let v = (camera.position - p).normalize();
        let sun = brdf.reflect_directional(n, v, lighting.direction_to_light, lighting.light_color);
        let ambient = lighting.ambient_color * brdf.ambient_albedo(n.dot(v));
        let expected = shown(sun + ambient)
            .to_array()
            .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        let got = *image.get_pixel(px, py);
        assert!(
            color_distance(got, [expected[0], expected[1], expected[2], 255]) <= TOLERANCE,
            "quadrant {i} (normal {n}): GPU {got:?}, CPU BRDF {expected:?}"
        );
        predicted.push(expected);
    }
    // The normal map matters: the quadrants differ well beyond the tolerance.
    let spread = predicted.iter().map(|c| c[0]).max().unwrap()
        - predicted.iter().map(|c| c[0]).min().unwrap();
    assert!(
        spread > 30,
        "quadrants too alike to test the map: {predicted:?}"
    );
    gpu.finish();
}

/// The ambient is a uniform environment reflected through the BRDF: metals
/// reflect it (glTF's default material, a rough white metal, is grey, not
/// black), and the GPU's fitted albedo equals its CPU twin
/// (`Brdf::ambient_albedo`) for metals and a dielectric at several
/// roughnesses, on a plane seen at n·v = 0.5.
#[test]
fn metals_and_dielectrics_reflect_the_ambient_as_the_cpu_twin_predicts() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, HALF);
    // Seen from 60° off the normal: the plane is tilted about X.
    let tilt = glam::Mat4::from_rotation_x(std::f32::consts::FRAC_PI_3);
    let copper = Vec4::new(0.95, 0.64, 0.54, 1.0);
    let cases = [
        (Vec4::ONE, 1.0, 1.0),
        (copper, 1.0, 0.3),
        (copper, 1.0, 0.7),
        (Vec4::new(0.2, 0.5, 0.8, 1.0), 0.0, 0.5),
    ];
    let width = 2.0 * HALF / cases.len() as f32;
    let centre_x = |i: usize| -HALF + width * (i as f32 + 0.5);
    for (i, &(base_color, metallic, roughness)) in cases.iter().enumerate() {
        let material = renderer
            .add_material(&Material {
                base_color_factor: base_color,
                metallic_factor: metallic,
                roughness_factor: roughness,
                ..Default::default()
            })
            .unwrap();
        renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: tilt * quad_at(Vec3::new(centre_x(i), 0.0, 0.0), width, 3.0),
            })
            .unwrap();
    }
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("shading_ambient_metals", &image);
    let camera = camera_framing_plane(HALF);
    let normal = tilt.transform_vector3(Vec3::Z);
    for (i, &(base_color, metallic, roughness)) in cases.iter().enumerate() {
        // The pixel column of the strip's centre; the row of the origin.
        let px = ((centre_x(i) + HALF) / (2.0 * HALF) * SIZE as f32) as u32;
        let p = Vec3::new(
            (px as f32 + 0.5) / SIZE as f32 * 2.0 * HALF - HALF,
            0.0,
            0.0,
        );
        let n_dot_v = normal.dot((camera.position - p).normalize());
        let brdf = Brdf {
            base_color: base_color.truncate(),
            metallic,
            roughness,
        };
        let expected = shown(brdf.ambient_albedo(n_dot_v))
            .to_array()
            .map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        let got = *image.get_pixel(px, SIZE / 2);
        assert!(
            color_distance(got, [expected[0], expected[1], expected[2], 255]) <= 2,
            "case {i} (n·v {n_dot_v}): GPU {got:?}, CPU {expected:?}"
        );
        if metallic == 1.0 {
            assert!(
                got[0] > 60,
                "case {i}: a metal is lit by the ambient: {got:?}"
            );
        }
    }
    gpu.finish();
}

#[test]
fn vertex_colours_multiply_the_base_colour() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    flat_quad_scene(&mut renderer, HALF);
    let quad = shapes::quad();
    // One colour for every vertex: the whole quad shows colour x factor.
    let colors = vec![[0.5, 1.0, 0.25, 1.0]; quad.positions.len()];
    let mesh = renderer
        .add_mesh(&unbound::MeshData {
            colors: Some(&colors),
            ..quad.as_mesh_data()
        })
        .unwrap();
    let material = renderer
        .add_material(&Material {
            base_color_factor: Vec4::new(0.8, 0.6, 1.0, 1.0),
            metallic_factor: 0.0,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 2.0 * HALF, 2.0 * HALF),
        })
        .unwrap();
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    // Flat lighting shows the albedo of base colour (0.4, 0.6, 0.25).
    let got = *image.get_pixel(SIZE / 2, SIZE / 2);
    let expected = flat_shown_linear([102, 153, 64, 255]);
    assert!(color_distance(got, expected) <= 1, "{got:?} {expected:?}");
    gpu.finish();
}

/// A glTF file of three unit quads (at x = -1.2, 0, 1.2) sharing positions
/// and indices, whose COLOR_0 is unorm8 RGBA, unorm16 RGB (stride 8) and
/// float RGB; one white dielectric material.
fn vertex_colour_gltf() -> String {
    let mut buffer = Vec::new();
    for p in [
        [-0.5f32, -0.5, 0.0],
        [0.5, -0.5, 0.0],
        [0.5, 0.5, 0.0],
        [-0.5, 0.5, 0.0],
    ] {
        p.iter().for_each(|v| buffer.extend(v.to_le_bytes()));
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        buffer.extend(i.to_le_bytes());
    }
    for _ in 0..4 {
        buffer.extend([255u8, 128, 0, 255]);
    }
    for _ in 0..4 {
        [65535u16, 0, 32768, 0]
            .iter()
            .for_each(|c| buffer.extend(c.to_le_bytes()));
    }
    for _ in 0..4 {
        [0.25f32, 0.5, 1.0]
            .iter()
            .for_each(|c| buffer.extend(c.to_le_bytes()));
    }
    assert_eq!(buffer.len(), 156);
    let mesh = |color: u32| {
        format!(
            r#"{{"primitives": [{{"attributes": {{"POSITION": 0, "COLOR_0": {color}}}, "indices": 1, "material": 0}}]}}"#
        )
    };
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "scene": 0,
  "scenes": [{{"nodes": [0, 1, 2]}}],
  "nodes": [
    {{"mesh": 0, "translation": [-1.2, 0, 0]}},
    {{"mesh": 1, "translation": [0, 0, 0]}},
    {{"mesh": 2, "translation": [1.2, 0, 0]}}
  ],
  "meshes": [{m0}, {m1}, {m2}],
  "materials": [{{"pbrMetallicRoughness": {{"metallicFactor": 0}}}}],
  "buffers": [{{"byteLength": 156, "uri": "data:application/octet-stream;base64,{data}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 12}},
    {{"buffer": 0, "byteOffset": 60, "byteLength": 16}},
    {{"buffer": 0, "byteOffset": 76, "byteLength": 32, "byteStride": 8}},
    {{"buffer": 0, "byteOffset": 108, "byteLength": 48}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, -0.5, 0], "max": [0.5, 0.5, 0]}},
    {{"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}},
    {{"bufferView": 2, "componentType": 5121, "normalized": true, "count": 4, "type": "VEC4"}},
    {{"bufferView": 3, "componentType": 5123, "normalized": true, "count": 4, "type": "VEC3"}},
    {{"bufferView": 4, "componentType": 5126, "count": 4, "type": "VEC3"}}
  ]
}}"#,
        m0 = mesh(2),
        m1 = mesh(3),
        m2 = mesh(4),
        data = base64(&buffer),
    )
}

#[test]
fn gltf_color_0_in_each_encoding_multiplies_the_base_colour() {
    let json = vertex_colour_gltf();
    let document = unbound::loaders::gltf::parse_gltf_slice(
        json.as_bytes(),
        std::path::Path::new("colours.gltf"),
        None,
    )
    .unwrap();
    let colors: Vec<[f32; 4]> = document
        .meshes
        .iter()
        .map(|m| m.colors.as_ref().expect("COLOR_0 read")[0])
        .collect();
    let expected = [
        [1.0, 128.0 / 255.0, 0.0, 1.0],
        [1.0, 0.0, 32768.0 / 65535.0, 1.0],
        [0.25, 0.5, 1.0, 1.0],
    ];
    for (got, want) in colors.iter().zip(expected) {
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
            "{got:?} vs {want:?}"
        );
    }
    let (gpu, mut renderer) = Gpu::with_renderer();
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer.set_camera(&camera_framing_plane(HALF)).unwrap();
    document
        .upload(&mut renderer, glam::Mat4::IDENTITY, None)
        .unwrap();
    let target = Target::with_format(&gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("shading_vertex_colours", &image);
    let scale = SIZE as f32 / (2.0 * HALF);
    for (x, want) in [
        (-1.2f32, [255, 128, 0, 255]),
        (0.0, [255, 0, 128, 255]),
        (1.2, [64, 128, 255, 255]),
    ] {
        let got = *image.get_pixel(((x + HALF) * scale) as u32, SIZE / 2);
        let shown = flat_shown_linear(want);
        assert!(
            color_distance(got, shown) <= 1,
            "quad at x = {x}: {got:?}, COLOR_0 says {want:?}, shown as {shown:?}"
        );
    }
    gpu.finish();
}
