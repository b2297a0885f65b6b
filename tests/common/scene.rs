//! Scene helpers: lighting, cameras, one-colour textures, quads and the
//! "frame recorded before a free" scenario.

use unbound::{FrameStats, MeshHandle, Renderer, shapes};

use super::{Gpu, Target, color_distance};

/// Lighting by a uniform white environment of radiance 1 alone (no sun):
/// a surface shows its albedo under it, which for the rough dielectrics of
/// these helpers is close to the base colour ([`flat_shown_srgb`] and
/// [`flat_shown_linear`] give it exactly).
pub fn flat_lighting() -> unbound::Lighting {
    unbound::Lighting {
        direction_to_light: glam::Vec3::Z,
        light_color: glam::Vec3::ZERO,
        ambient_color: glam::Vec3::ONE,
    }
}

/// What a lit pixel of HDR radiance `radiance` shows in a linear target
/// under the renderer's default exposure and tone mapping (Khronos PBR
/// Neutral): the CPU twin of the output pass.
pub fn shown(radiance: glam::Vec3) -> glam::Vec3 {
    unbound::output::Output::default().apply(radiance)
}

/// What [`shown`] gives for `radiance`, as bytes of an sRGB target.
pub fn shown_srgb(radiance: glam::Vec3) -> [u8; 3] {
    shown(radiance)
        .to_array()
        .map(|v| (linear_to_srgb(v).clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// What [`shown`] gives for a clear colour (its alpha kept), as bytes of
/// an sRGB target: the background of a cleared frame.
pub fn shown_clear_srgb(color: wgpu::Color) -> [u8; 4] {
    let [r, g, b] = shown_srgb(glam::DVec3::new(color.r, color.g, color.b).as_vec3());
    [r, g, b, (color.a.clamp(0.0, 1.0) * 255.0).round() as u8]
}

/// What a fully covered pixel shows under [`flat_lighting`] for a rough
/// dielectric (metallic 0, roughness 1: the default of these helpers'
/// materials) of base colour `linear`, facing the camera, in a linear
/// target: the CPU twin of the GPU's image-based light under the
/// renderer's default uniform white environment (`Brdf::ambient_albedo`
/// at n·v = 1), then of the default tone mapping ([`shown`]). Alpha is
/// kept.
fn flat_albedo(linear: [f32; 4]) -> [f32; 4] {
    let brdf = unbound::lighting::Brdf {
        base_color: glam::Vec4::from(linear).truncate(),
        metallic: 0.0,
        roughness: 1.0,
    };
    shown(brdf.ambient_albedo(1.0)).extend(linear[3]).to_array()
}

/// What [`flat_lighting`] shows on an sRGB target for a rough dielectric
/// whose base colour is the sRGB bytes `color` (e.g. a [`solid_texture`]).
pub fn flat_shown_srgb(color: [u8; 4]) -> [u8; 4] {
    let linear = std::array::from_fn(|c| {
        let v = f32::from(color[c]) / 255.0;
        if c == 3 { v } else { srgb_to_linear(v) }
    });
    let shown = flat_albedo(linear);
    std::array::from_fn(|c| {
        let v = if c == 3 {
            shown[c]
        } else {
            linear_to_srgb(shown[c])
        };
        (v.clamp(0.0, 1.0) * 255.0).round() as u8
    })
}

/// What [`flat_lighting`] shows on a linear target for a rough dielectric
/// whose linear base colour is `color` (bytes over 255).
pub fn flat_shown_linear(color: [u8; 4]) -> [u8; 4] {
    let shown = flat_albedo(color.map(|c| f32::from(c) / 255.0));
    shown.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// The sRGB transfer function's decoding.
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// The sRGB transfer function's encoding.
pub fn linear_to_srgb(v: f32) -> f32 {
    if v <= 0.0031308 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

/// A camera on +Z looking at the origin so that the square
/// [-half, half]^2 of the plane z = 0 exactly fills a square target.
pub fn camera_framing_plane(half: f32) -> unbound::Camera {
    let distance = 10.0 * half;
    unbound::Camera {
        position: glam::Vec3::new(0.0, 0.0, distance),
        target: glam::Vec3::ZERO,
        up: glam::Vec3::Y,
        fov_y_radians: 2.0 * (half / distance).atan(),
        aspect: 1.0,
        z_near: distance * 0.5,
        z_far: distance * 2.0,
    }
}

/// Flat lighting and [`camera_framing_plane`]`(half)`; returns the unit quad
/// mesh, facing the camera, to place with [`quad_at`].
pub fn flat_quad_scene(renderer: &mut Renderer, half: f32) -> MeshHandle {
    renderer.set_lighting(&flat_lighting()).unwrap();
    renderer.set_camera(&camera_framing_plane(half)).unwrap();
    renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap()
}

/// A 1x1 texture of one colour, without mips.
pub fn solid_texture(renderer: &mut Renderer, color: [u8; 4]) -> unbound::TextureHandle {
    renderer
        .add_texture(&unbound::TextureDesc {
            label: None,
            width: 1,
            height: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &color,
            mips: unbound::Mips::None,
        })
        .unwrap()
}

/// A dielectric material whose base colour is `texture` sampled with
/// `sampler` (under [`flat_lighting`] it shows [`flat_shown_srgb`] of the
/// texture).
pub fn material_showing(
    texture: unbound::TextureHandle,
    sampler: unbound::SamplerHandle,
) -> unbound::Material {
    unbound::Material {
        base_color: Some(unbound::TextureRef::new(texture, sampler)),
        metallic_factor: 0.0,
        ..Default::default()
    }
}

/// Adds a material showing `texture` with the default sampler.
pub fn textured_material(
    renderer: &mut Renderer,
    texture: unbound::TextureHandle,
) -> unbound::MaterialHandle {
    let sampler = renderer.heap().default_sampler();
    renderer
        .add_material(&material_showing(texture, sampler))
        .unwrap()
}

/// What [`add_solid_object`] added.
pub struct SolidObject {
    pub object: unbound::ObjectHandle,
    pub material: unbound::MaterialHandle,
    pub texture: unbound::TextureHandle,
}

/// Adds an object of `mesh` at `world_from_object` whose material shows a
/// new 1x1 texture of `color` ([`solid_texture`], [`textured_material`]).
pub fn add_solid_object(
    renderer: &mut Renderer,
    mesh: MeshHandle,
    color: [u8; 4],
    world_from_object: glam::Mat4,
) -> SolidObject {
    let texture = solid_texture(renderer, color);
    let material = textured_material(renderer, texture);
    let object = renderer
        .add_object(&unbound::ObjectDesc {
            mesh,
            material,
            world_from_object,
        })
        .unwrap();
    SolidObject {
        object,
        material,
        texture,
    }
}

/// Places a unit quad (facing +Z) scaled to `width` x `height` at `center`.
pub fn quad_at(center: glam::Vec3, width: f32, height: f32) -> glam::Mat4 {
    glam::Mat4::from_scale_rotation_translation(
        glam::Vec3::new(width, height, 1.0),
        glam::Quat::IDENTITY,
        center,
    )
}

/// A camera looking at the box `(min, max)` from the front, slightly above,
/// framing it in a square target.
pub fn camera_framing_box(min: glam::Vec3, max: glam::Vec3) -> unbound::Camera {
    let center = (min + max) * 0.5;
    let radius = (max - min).length() * 0.5;
    let direction = glam::Vec3::new(0.35, 0.25, 1.0).normalize();
    unbound::Camera {
        position: center + direction * radius * 2.6,
        target: center,
        up: glam::Vec3::Y,
        fov_y_radians: 45f32.to_radians(),
        aspect: 1.0,
        z_near: radius * 0.05,
        z_far: radius * 10.0,
    }
}

/// What [`record_across_a_free`] saw.
pub struct AcrossAFree {
    /// Centre pixel of frame 1 (recorded while the red texture was live).
    pub first: image::Rgba<u8>,
    /// Centre pixel of frame 2 (recorded after red was freed, blue added).
    pub second: image::Rgba<u8>,
    /// The freed texture.
    pub red: unbound::TextureHandle,
    /// The texture added after the free.
    pub blue: unbound::TextureHandle,
    /// Frame 2's statistics.
    pub second_stats: FrameStats,
}

impl AcrossAFree {
    /// Each frame shows what it was recorded with: frame 1 red, frame 2 blue
    /// (as flat lighting shows them).
    pub fn assert_each_frame_shows_its_texture(&self) {
        assert!(
            color_distance(self.first, flat_shown_srgb([255, 0, 0, 255])) <= 1,
            "frame 1: {:?}",
            self.first
        );
        assert!(
            color_distance(self.second, flat_shown_srgb([0, 0, 255, 255])) <= 1,
            "frame 2: {:?}",
            self.second
        );
    }
}

/// Frame 1 samples a red texture on a quad filling the view. Before frame 1
/// is even submitted, the quad, its material and the red texture are freed, a
/// blue texture is added (it may reuse the slot) and frame 2 is recorded.
/// Both frames are submitted together. `while_live` runs while red is still
/// in use, for extra checks.
pub fn record_across_a_free(
    gpu: &Gpu,
    renderer: &mut Renderer,
    while_live: impl FnOnce(&mut Renderer, unbound::TextureHandle),
) -> AcrossAFree {
    let quad = flat_quad_scene(renderer, 1.0);
    let filling_the_view = quad_at(glam::Vec3::ZERO, 2.0, 2.0);
    let red = add_solid_object(renderer, quad, [255, 0, 0, 255], filling_the_view);
    while_live(renderer, red.texture);

    let target1 = Target::new(gpu, 16, 16);
    let target2 = Target::new(gpu, 16, 16);
    let mut encoder1 = gpu.device.create_command_encoder(&Default::default());
    renderer.render(&mut encoder1, &target1.frame()).unwrap();
    let out1 = target1.copy_out(gpu, &mut encoder1);

    renderer.remove_object(red.object).unwrap();
    renderer.remove_material(red.material).unwrap();
    renderer.remove_texture(red.texture).unwrap();
    let blue = add_solid_object(renderer, quad, [0, 0, 255, 255], filling_the_view);
    let mut encoder2 = gpu.device.create_command_encoder(&Default::default());
    let second_stats = renderer.render(&mut encoder2, &target2.frame()).unwrap();
    let out2 = target2.copy_out(gpu, &mut encoder2);
    gpu.queue.submit([encoder1.finish(), encoder2.finish()]);

    AcrossAFree {
        first: *target1.image_from(gpu, &out1).get_pixel(8, 8),
        second: *target2.image_from(gpu, &out2).get_pixel(8, 8),
        red: red.texture,
        blue: blue.texture,
        second_stats,
    }
}

/// A `size`x`size` RGBA8 image of four constant quadrants, in image order:
/// top left, top right, bottom left, bottom right (on a quad from
/// [`quad_at`], u grows to the right and v down, so each quadrant shows in
/// the same corner on screen).
pub fn quadrant_texels(size: u32, quadrants: [[u8; 4]; 4]) -> Vec<u8> {
    let half = size / 2;
    (0..size * size)
        .flat_map(|i| {
            let (x, y) = (i % size, i / size);
            quadrants[usize::from(y >= half) * 2 + usize::from(x >= half)]
        })
        .collect()
}

/// A texture of `format` without mips (`Rgba8Unorm` for data such as
/// normals, metallic-roughness and occlusion; `Rgba8UnormSrgb` for colour).
pub fn data_texture(
    renderer: &mut Renderer,
    size: u32,
    format: wgpu::TextureFormat,
    texels: &[u8],
) -> unbound::TextureHandle {
    renderer
        .add_texture(&unbound::TextureDesc {
            label: None,
            width: size,
            height: size,
            format,
            data: texels,
            mips: unbound::Mips::None,
        })
        .unwrap()
}

/// The pixel at the centre of each quadrant of a `size`x`size` target, in
/// [`quadrant_texels`]' order.
pub fn quadrant_centres(size: u32) -> [(u32, u32); 4] {
    let (a, b) = (size / 4, size * 3 / 4);
    [(a, a), (b, a), (a, b), (b, b)]
}

/// Loads the demo scene at its test size into `renderer` (600 instances,
/// 48 textures, meshes built with `mesh_options`) and sets its camera;
/// returns the target size it was framed for, 160×90.
pub fn small_demo_scene(renderer: &mut Renderer, mesh_options: unbound::MeshOptions) -> (u32, u32) {
    let config = unbound_scenes::demo::DemoSceneConfig {
        instances: 600,
        textures: 48,
        mesh_options,
        ..Default::default()
    };
    let scene = unbound_scenes::demo::build_demo_scene(renderer, &config, 160.0 / 90.0).unwrap();
    renderer.set_camera(&scene.camera).unwrap();
    (160, 90)
}
