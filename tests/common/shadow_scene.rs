//! The shadow scene (`tests/shadows.rs`, `tests/spot_shadows.rs`,
//! `tests/tiers.rs`): a ground plane under the sun (and, for the spot
//! shadow tests, a spot light above it), an opaque box floating above it
//! and an alpha-masked quad whose texture is a checker of holes, both
//! casting onto the plane; and the CPU ray tests that say which plane
//! points a light reaches.

use glam::{Mat4, Quat, Vec3, Vec4, Vec4Swizzles};
use unbound::{
    AlphaMode, Camera, Light, Lighting, Material, ObjectDesc, Renderer, ShadowSettings, shapes,
};

use super::{Gpu, Target, data_texture};

/// Side of the images, in pixels.
pub const SIZE: u32 = 128;
/// The ground plane: y = 0, x and z in [-PLANE_HALF, PLANE_HALF].
pub const PLANE_HALF: f32 = 7.0;
/// The box: an axis-aligned cube of this centre and side.
pub const BOX_CENTER: Vec3 = Vec3::new(-2.6, 1.8, 0.3);
pub const BOX_SIDE: f32 = 1.6;
/// The masked quad: horizontal (facing up) at this centre, this side, a
/// CHECKER x CHECKER texture whose odd cells are holes (alpha 0).
pub const QUAD_CENTER: Vec3 = Vec3::new(1.9, 1.6, -0.5);
pub const QUAD_SIDE: f32 = 4.0;
pub const CHECKER: u32 = 4;

/// Where the sun shines from.
pub fn sun_direction() -> Vec3 {
    Vec3::new(-0.3, 0.8, -0.5).normalize()
}

/// The scene's lighting: the sun, and the default uniform environment.
pub fn lighting(sun: bool) -> Lighting {
    Lighting {
        direction_to_light: sun_direction(),
        light_color: if sun {
            Lighting::default().light_color
        } else {
            Vec3::ZERO
        },
        ..Lighting::default()
    }
}

/// Shadows as the tests draw them: four cascades of 512² (the tests' most).
pub fn settings(enabled: bool) -> ShadowSettings {
    ShadowSettings {
        enabled,
        resolution: 512,
        max_distance: 16.0,
        ..ShadowSettings::default()
    }
}

pub fn camera() -> Camera {
    Camera {
        position: Vec3::new(0.0, 7.5, 6.5),
        target: Vec3::new(0.0, 0.0, -0.5),
        fov_y_radians: 52f32.to_radians(),
        aspect: 1.0,
        z_near: 0.5,
        z_far: 60.0,
        ..Camera::default()
    }
}

/// The quad's placement: the unit quad (facing +Z) turned to face +Y.
pub fn quad_from_object() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::new(QUAD_SIDE, QUAD_SIDE, 1.0),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        QUAD_CENTER,
    )
}

/// Whether the checker cell at texture coordinates `uv` is a hole.
fn is_hole(uv: glam::Vec2) -> bool {
    let cell = (uv * CHECKER as f32).floor();
    (cell.x + cell.y) as i32 % 2 != 0
}

/// Adds the scene to `renderer` and sets its camera and lighting.
pub fn build(renderer: &mut Renderer, sun: bool) {
    renderer.set_camera(&camera()).unwrap();
    renderer.set_lighting(&lighting(sun)).unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let dielectric = |color: [f32; 4]| Material {
        base_color_factor: Vec4::from(color),
        metallic_factor: 0.0,
        roughness_factor: 0.8,
        ..Material::default()
    };
    let ground = renderer
        .add_material(&dielectric([0.8, 0.8, 0.75, 1.0]))
        .unwrap();
    let red = renderer
        .add_material(&dielectric([0.8, 0.2, 0.15, 1.0]))
        .unwrap();
    let texels: Vec<u8> = (0..CHECKER * CHECKER)
        .flat_map(|i| {
            let uv = glam::Vec2::new((i % CHECKER) as f32 + 0.5, (i / CHECKER) as f32 + 0.5)
                / CHECKER as f32;
            [60, 120, 230, if is_hole(uv) { 0 } else { 255 }]
        })
        .collect();
    let holes = data_texture(
        renderer,
        CHECKER,
        wgpu::TextureFormat::Rgba8UnormSrgb,
        &texels,
    );
    let nearest = renderer
        .add_sampler(&unbound::SamplerDesc {
            address_u: wgpu::AddressMode::ClampToEdge,
            address_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
        })
        .unwrap();
    let masked = renderer
        .add_material(&Material {
            base_color: Some(unbound::TextureRef::new(holes, nearest)),
            alpha_mode: AlphaMode::Mask { cutoff: 0.5 },
            ..dielectric([1.0; 4])
        })
        .unwrap();
    let flat = Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2);
    for desc in [
        ObjectDesc {
            mesh: quad,
            material: ground,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(2.0 * PLANE_HALF, 2.0 * PLANE_HALF, 1.0),
                flat,
                Vec3::ZERO,
            ),
        },
        ObjectDesc {
            mesh: cube,
            material: red,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::splat(BOX_SIDE),
                Quat::IDENTITY,
                BOX_CENTER,
            ),
        },
        ObjectDesc {
            mesh: quad,
            material: masked,
            world_from_object: quad_from_object(),
        },
    ] {
        renderer.add_object(&desc).unwrap();
    }
}

/// A renderer of `tier` (`None`: the best) with the scene, shadows as
/// `shadows` says.
pub fn renderer(gpu: &Gpu, tier: Option<unbound::Tier>, sun: bool, shadows: bool) -> Renderer {
    let mut renderer = gpu.renderer_with(unbound::RendererConfig {
        capacities: Gpu::default_capacities(),
        tier,
        shadows: settings(shadows),
        ..Default::default()
    });
    build(&mut renderer, sun);
    renderer
}

/// The scene rendered at [`SIZE`]² (after one frame that fills the
/// statistics), and the tier that drew it.
pub fn render(
    gpu: &Gpu,
    tier: Option<unbound::Tier>,
    sun: bool,
    shadows: bool,
) -> (image::RgbaImage, unbound::Tier) {
    let mut renderer = renderer(gpu, tier, sun, shadows);
    let target = Target::new(gpu, SIZE, SIZE);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, renderer.tier())
}

/// Where the first hit of the ray `origin + t direction` (t > 0) with the
/// axis-aligned box `(min, max)` lies, if any.
fn ray_box(origin: Vec3, direction: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let inverse = direction.recip();
    let (a, b) = ((min - origin) * inverse, (max - origin) * inverse);
    let near = a.min(b).max_element();
    let far = a.max(b).min_element();
    (far >= near.max(0.0)).then_some(near.max(0.0))
}

/// What the ray `origin + t direction` (t > 0) meets first on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Blocker {
    /// The box.
    Box,
    /// An opaque cell of the quad.
    OpaqueCell,
    /// Nothing: it crosses the quad through a hole.
    Hole,
    /// Nothing, and it misses the quad.
    Clear,
}

impl Blocker {
    /// Whether the ray is stopped.
    pub fn blocks(self) -> bool {
        matches!(self, Blocker::Box | Blocker::OpaqueCell)
    }
}

pub fn trace(origin: Vec3, direction: Vec3) -> Blocker {
    let half = Vec3::splat(BOX_SIDE * 0.5);
    if ray_box(origin, direction, BOX_CENTER - half, BOX_CENTER + half).is_some() {
        return Blocker::Box;
    }
    let t = (QUAD_CENTER.y - origin.y) / direction.y;
    if t <= 0.0 || !t.is_finite() {
        return Blocker::Clear;
    }
    let local = quad_from_object()
        .inverse()
        .transform_point3(origin + direction * t);
    if local.x.abs() > 0.5 || local.y.abs() > 0.5 {
        return Blocker::Clear;
    }
    // shapes::quad's texture coordinates.
    let uv = glam::Vec2::new(local.x + 0.5, 0.5 - local.y);
    if is_hole(uv) {
        Blocker::Hole
    } else {
        Blocker::OpaqueCell
    }
}

/// Where the spot light of the spot shadow tests stands: above everything
/// in the scene, so a ray from the plane towards it meets what [`trace`]
/// meets.
pub const SPOT_POSITION: Vec3 = Vec3::new(0.3, 7.0, 0.2);
/// Its inner and outer cone angles (radians).
pub const SPOT_CONE: (f32, f32) = (0.75, 0.85);

/// The spot light of the spot shadow tests, shining almost straight down
/// over the box and the quad, casting shadows or not.
pub fn spot_light(casts_shadows: bool) -> Light {
    Light {
        casts_shadows,
        ..Light::spot(
            SPOT_POSITION,
            Vec3::new(-0.05, -1.0, -0.04),
            Vec3::new(1.0, 0.95, 0.9),
            200.0,
            Some(20.0),
            SPOT_CONE,
        )
    }
}

/// The scene on `tier` (`None`: the best) with shadows on, the sun as
/// `sun` says and the spot light (`spot`: casting shadows or not; `None`:
/// no spot), rendered at [`SIZE`]²; and the renderer.
pub fn render_with_spot(
    gpu: &Gpu,
    tier: Option<unbound::Tier>,
    sun: bool,
    spot: Option<bool>,
) -> (image::RgbaImage, Renderer) {
    let mut renderer = renderer(gpu, tier, sun, true);
    if let Some(casts_shadows) = spot {
        renderer.add_light(&spot_light(casts_shadows)).unwrap();
    }
    let target = Target::new(gpu, SIZE, SIZE);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, renderer)
}

/// The ground-plane point pixel `(x, y)` shows (its centre's ray), if the
/// pixel shows the plane: inside it, and seen past the box and the quad.
pub fn plane_point(x: f32, y: f32) -> Option<Vec3> {
    let camera = camera();
    let world_from_clip = camera.clip_from_world().inverse();
    let ndc = glam::Vec2::new(x / SIZE as f32 * 2.0 - 1.0, 1.0 - y / SIZE as f32 * 2.0);
    let unproject = |z: f32| {
        let p = world_from_clip * Vec4::new(ndc.x, ndc.y, z, 1.0);
        p.xyz() / p.w
    };
    let (near, far) = (unproject(0.0), unproject(1.0));
    let direction = (far - near).normalize();
    let t = -near.y / direction.y;
    let point = near + direction * t;
    let inside = point.x.abs() < PLANE_HALF && point.z.abs() < PLANE_HALF;
    let seen = !trace(point, -direction).blocks();
    (t > 0.0 && inside && seen).then_some(point)
}

/// The ground-plane point pixel point `(x, y)` shows and its footprint:
/// the farthest of the plane points 2 pixels away along each axis (`None`
/// where any of the five is not on the plane).
pub fn plane_footprint(x: f32, y: f32) -> Option<(Vec3, f32)> {
    let point = plane_point(x, y)?;
    let mut footprint = 0.0_f32;
    for (dx, dy) in [(2.0, 0.0), (-2.0, 0.0), (0.0, 2.0), (0.0, -2.0)] {
        footprint = footprint.max(plane_point(x + dx, y + dy)?.distance(point));
    }
    Some((point, footprint))
}

/// The view depth of `point` (distance along the camera's forward axis).
pub fn view_depth(point: Vec3) -> f32 {
    let camera = camera();
    (point - camera.position).dot((camera.target - camera.position).normalize())
}

/// Reads every layer of the shadow map back (Depth32Float texels).
pub fn read_shadow_map(gpu: &Gpu, renderer: &unbound::Renderer) -> Vec<u8> {
    let texture = renderer.shadow_map_texture().expect("shadows were on");
    let (width, height, layers) = (
        texture.width(),
        texture.height(),
        texture.depth_or_array_layers(),
    );
    let bytes_per_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("shadow map readback"),
        size: u64::from(bytes_per_row * height * layers),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::DepthOnly,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: layers,
        },
    );
    gpu.queue.submit([encoder.finish()]);
    gpu.read_buffer(&buffer, 0, buffer.size())
}
