//! The output pass's checks, shared by `tests/output.rs` (lavapipe) and
//! `tests/tiers.rs` (tier C on GL): the tone-mapping curves on the GPU
//! against their CPU twins on a ramp of HDR values, and 4× MSAA against 1×.

use glam::{Vec3, Vec4};
use unbound::output::{Msaa, Output, ToneMapping};
use unbound::{
    DebugOptions, DebugView, ID_TARGET_FORMAT, Lighting, Material, ObjectDesc, ObjectHandle,
    Renderer, RendererConfig, shapes,
};

use super::*;

/// Side of the grid of unit quads, one per pixel.
pub const GRID: u32 = 16;

/// |GPU - CPU| allowed for each curve, relative to max(1, CPU): the output
/// is a half float (2^-11 relative), and the GPU's log2, pow and division
/// are not exactly the CPU's. Measured on lavapipe and llvmpipe GL: at
/// most 4.9e-4 (printed by the test).
pub const CURVE_TOLERANCE: f32 = 2e-3;

/// No sun, no environment light: a surface shows its emission alone.
pub fn dark() -> Lighting {
    Lighting {
        direction_to_light: Vec3::Z,
        light_color: Vec3::ZERO,
        ambient_color: Vec3::ZERO,
    }
}

/// The HDR radiance of grid cell `i`: from 2^-8 to 2^6, grey, orange or
/// blue in turn (so that the curves' hue and desaturation paths run too).
pub fn ramp(i: u32) -> Vec3 {
    let value = (-8.0 + 14.0 * i as f32 / (GRID * GRID - 1) as f32).exp2();
    let tint = [
        Vec3::ONE,
        Vec3::new(1.0, 0.45, 0.15),
        Vec3::new(0.1, 0.35, 1.0),
    ][i as usize % 3];
    tint * value
}

/// The pixel grid cell `i` covers (row by row from the top left).
pub fn cell_pixel(i: u32) -> (u32, u32) {
    (i % GRID, i / GRID)
}

/// GRID × GRID unit quads filling a GRID × GRID target, quad `i` black and
/// emitting `radiance(i)`, in the [`dark`]; returns the objects in cell
/// order.
pub fn emissive_grid(renderer: &mut Renderer, radiance: impl Fn(u32) -> Vec3) -> Vec<ObjectHandle> {
    let quad = flat_quad_scene(renderer, GRID as f32 / 2.0);
    renderer.set_lighting(&dark()).unwrap();
    (0..GRID * GRID)
        .map(|i| {
            let material = renderer
                .add_material(&Material {
                    base_color_factor: Vec4::new(0.0, 0.0, 0.0, 1.0),
                    metallic_factor: 0.0,
                    emissive_factor: radiance(i),
                    ..Default::default()
                })
                .unwrap();
            let (x, y) = cell_pixel(i);
            let center = Vec3::new(
                x as f32 + 0.5 - GRID as f32 / 2.0,
                GRID as f32 / 2.0 - y as f32 - 0.5,
                0.0,
            );
            renderer
                .add_object(&ObjectDesc {
                    mesh: quad,
                    material,
                    world_from_object: quad_at(center, 1.0, 1.0),
                })
                .unwrap()
        })
        .collect()
}

/// The HDR target holds the radiance shaded (half floats, alpha 1 where
/// covered), and the output pass writes each curve's CPU twin of it, after
/// the exposure, into an `Rgba16Float` colour target; the four curves
/// differ from each other on the GPU (the setting reaches it). Returns the
/// largest relative error seen.
pub fn check_curves(gpu: &Gpu, config: RendererConfig) -> f32 {
    let format = wgpu::TextureFormat::Rgba16Float;
    let mut renderer = gpu.renderer_with(RendererConfig {
        color_format: format,
        ..config
    });
    emissive_grid(&mut renderer, ramp);
    let target = Target::with_format(gpu, GRID, GRID, format);
    let curve = |tone_mapping, exposure_ev| Output {
        exposure_ev,
        tone_mapping,
    };
    let (mut images, mut worst) = (Vec::new(), 0.0f32);
    for output in [
        curve(ToneMapping::PbrNeutral, 0.0),
        curve(ToneMapping::Aces, 0.0),
        curve(ToneMapping::Agx, 0.0),
        curve(ToneMapping::Linear, 0.0),
        curve(ToneMapping::PbrNeutral, -1.5),
        curve(ToneMapping::Linear, 2.0),
    ] {
        renderer.set_output(&output).unwrap();
        target.render(gpu, &mut renderer);
        let hdr = read_rgba16f(gpu, renderer.hdr_target().unwrap(), 0, 0);
        let shown = read_rgba16f(gpu, target.color_texture(), 0, 0);
        let mut curve_worst = 0.0f32;
        for i in 0..GRID * GRID {
            let (x, y) = cell_pixel(i);
            let at = (y * GRID + x) as usize;
            let radiance = hdr[at].truncate();
            let half_float = (radiance - ramp(i)).abs().max_element();
            assert!(
                half_float <= ramp(i).max_element() * 1e-3 && hdr[at].w == 1.0,
                "cell {i}: the HDR target holds {}, emitted {}",
                hdr[at],
                ramp(i)
            );
            let expected = output.apply(radiance);
            let error = (shown[at].truncate() - expected).abs().max_element()
                / expected.max_element().max(1.0);
            curve_worst = curve_worst.max(error);
            assert!(
                error <= CURVE_TOLERANCE && shown[at].w == 1.0,
                "{output:?}, cell {i} ({radiance}): GPU {}, CPU {expected}",
                shown[at]
            );
        }
        println!("{output:?}: largest relative error {curve_worst:.2e}");
        worst = worst.max(curve_worst);
        images.push(shown);
    }
    for (i, a) in images.iter().enumerate().take(4) {
        for b in &images[i + 1..4] {
            let most = a
                .iter()
                .zip(b)
                .map(|(a, b)| (*a - *b).abs().max_element())
                .fold(0.0, f32::max);
            assert!(
                most > 0.05,
                "curve {i} and a later one differ by at most {most}"
            );
        }
    }
    worst
}

/// A lit scene of spheres, overlapping at different depths, smooth and
/// rough, metal and not. Convex and smooth-shaded: every edge in the image
/// is an edge of the object-id view.
fn msaa_scene(renderer: &mut Renderer) {
    let sphere = renderer
        .add_mesh(&shapes::sphere(32, 16).as_mesh_data())
        .unwrap();
    for i in 0..9 {
        let material = renderer
            .add_material(&Material {
                base_color_factor: Vec4::new(0.9, 0.3 + 0.07 * i as f32, 0.2, 1.0),
                metallic_factor: (i % 2) as f32,
                roughness_factor: 0.2 + 0.1 * i as f32,
                ..Default::default()
            })
            .unwrap();
        let (x, y) = ((i % 3) as f32 - 1.0, (i / 3) as f32 - 1.0);
        renderer
            .add_object(&ObjectDesc {
                mesh: sphere,
                material,
                world_from_object: glam::Mat4::from_scale_rotation_translation(
                    Vec3::splat(1.2 + 0.1 * (i % 4) as f32),
                    glam::Quat::from_rotation_y(0.4 * i as f32),
                    Vec3::new(0.9 * x, 0.8 * y, 0.3 * (i % 3) as f32),
                ),
            })
            .unwrap();
    }
    renderer
        .set_camera(&unbound::Camera {
            position: Vec3::new(0.0, 0.0, 4.0),
            aspect: 1.5,
            ..Default::default()
        })
        .unwrap();
}

/// Whether some pixel of the 3 × 3 neighbourhood of (x, y) in `image`
/// passes `test`.
fn any_around(image: &image::RgbaImage, x: u32, y: u32, test: impl Fn([u8; 4]) -> bool) -> bool {
    (x.saturating_sub(1)..=(x + 1).min(image.width() - 1)).any(|nx| {
        (y.saturating_sub(1)..=(y + 1).min(image.height() - 1))
            .any(|ny| test(image.get_pixel(nx, ny).0))
    })
}

/// What [`check_msaa`] counted.
#[derive(Debug)]
pub struct MsaaEdges {
    /// Pixels within one pixel of an edge of the 1× id view.
    pub edges: u32,
    /// Of those, the ones whose lit colour differs by more than 2 at 4×.
    pub differing: u32,
    /// Pixels whose id differs at 4×.
    pub ids_differing: u32,
    /// The largest lit difference off the edges.
    pub off_edges: u8,
}

/// 4× renders (no panic at `finish`) the image 1× renders except along
/// edges: every pixel differing by more than 2/255 lies within one pixel
/// of a geometric edge of the 1× object-id view (some pixel of its 3 × 3
/// neighbourhood shows another id, or nothing), and over a quarter of the
/// edge pixels differ (the edges are antialiased). The id view at 4× (the
/// first sample, never averaged) equals the 1× one off the edges, and
/// everywhere shows an id of the 1× neighbourhood (or nothing) with alpha
/// 0 or 255: an average would be neither.
pub fn check_msaa(gpu: &Gpu, config: RendererConfig, name: &str) -> MsaaEdges {
    let (width, height) = (96, 64);
    let render = |msaa, view: DebugView| {
        let mut renderer = gpu.renderer_with(RendererConfig { msaa, ..config });
        msaa_scene(&mut renderer);
        renderer
            .set_debug(&DebugOptions {
                view,
                ..Default::default()
            })
            .unwrap();
        let format = if view.is_id_view() {
            ID_TARGET_FORMAT
        } else {
            Target::FORMAT
        };
        let target = Target::with_msaa(gpu, width, height, format, msaa);
        target.render(gpu, &mut renderer).0
    };
    let ids = render(Msaa::X1, DebugView::ObjectIndex);
    let ids_4x = render(Msaa::X4, DebugView::ObjectIndex);
    let lit = render(Msaa::X1, DebugView::Lit);
    let lit_4x = render(Msaa::X4, DebugView::Lit);
    save_output(&format!("{name}_1x"), &lit);
    save_output(&format!("{name}_4x"), &lit_4x);
    let mut counts = MsaaEdges {
        edges: 0,
        differing: 0,
        ids_differing: 0,
        off_edges: 0,
    };
    for (x, y, pixel) in lit.enumerate_pixels() {
        let id = ids.get_pixel(x, y).0;
        let edge = any_around(&ids, x, y, |other| other != id);
        let difference = color_distance(*pixel, lit_4x.get_pixel(x, y).0);
        assert!(
            edge || difference <= 2,
            "{name}: ({x}, {y}) is off the edges: 1× {pixel:?}, 4× {:?}",
            lit_4x.get_pixel(x, y)
        );
        let id_4x = ids_4x.get_pixel(x, y).0;
        assert!(
            edge || id == id_4x,
            "{name}: ({x}, {y}): ids differ off the edges"
        );
        assert!(
            (id_4x[3] == 0 || id_4x[3] == 255) && any_around(&ids, x, y, |other| other == id_4x),
            "{name}: ({x}, {y}): {id_4x:?} at 4× is no id around it at 1×"
        );
        counts.edges += u32::from(edge);
        counts.differing += u32::from(edge && difference > 2);
        counts.ids_differing += u32::from(id != id_4x);
        if !edge {
            counts.off_edges = counts.off_edges.max(difference);
        }
    }
    println!("{name}: {} pixels, {counts:?}", width * height);
    assert!(
        counts.edges > 200 && counts.edges < width * height / 2,
        "{name}: {counts:?}"
    );
    assert!(
        counts.differing > counts.edges / 4,
        "{name}: {counts:?}: antialiased"
    );
    counts
}
