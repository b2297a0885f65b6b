//! Debug views through the visibility buffer (`src/debug.rs`): every view
//! the draw pass draws, but the draw view, is shaded by the material pass
//! from the reconstructed surface and gives the forward image; the raster
//! view tells the compute rasteriser's pixels from the hardware's.
//!
//! - Same image: the demo scene (textured, normal-mapped, with simplified
//!   levels and level of detail on), the shadowed scene (cascades, an
//!   alpha-masked quad) and the overdraw scene (40 point lights, masked
//!   screens, blended quads drawn forward on top), each view forward and
//!   through the visibility buffer, with each material pass
//!   ([`MaterialPass`]: the fragment pass and the compute pass, the
//!   default, whose `DEBUG_VIEWS` variant is a compute pipeline too; with
//!   occlusion culling on, the renderers' default, the compute pass
//!   shades once after the late phase). Id views (material, object,
//!   texture slot) equal exactly away from triangle edges (the 3×3
//!   neighbourhood of the visibility ids holds one triangle); the others
//!   within 2/255 on at least 99% of pixels, as the lit image
//!   (`tests/visibility.rs` says why they differ at all). The
//!   missing-texture highlight too.
//! - Raster view: with the compute rasteriser (buffer path) and a
//!   threshold that sends the demo scene's small instances to compute,
//!   both colours show; a pixel is orange exactly where its id carries
//!   `VISIBILITY_COMPUTE`, each object is rasterised by one rasteriser
//!   only, every compute pixel holds a value in the compute rasteriser's
//!   buffer, and the same frame with threshold 0 (nothing to compute) and
//!   forward show no orange.

mod common;

use common::*;
use unbound::debug::decode_id;
use unbound::gpu_types::{VISIBILITY_COMPUTE, VISIBILITY_TRIANGLE_MASK};
use unbound::{
    ComputeRaster, DebugOptions, DebugView, Geometry, ID_TARGET_FORMAT, LodSettings, MaterialPass,
    MeshOptions, Renderer, RendererConfig,
};

/// Whether the frame of `view` runs through the visibility buffer (every
/// drawn view but the draw view).
fn shaded_by_the_material_pass(view: DebugView) -> bool {
    view != DebugView::DrawIndex && !view.traces_rays()
}

/// Renders `options` forward and through the visibility buffer at `size`
/// into a linear target and compares them (see the module docs); returns
/// how many distinct colours the visibility buffer's image has where it
/// drew.
fn compare_view(
    gpu: &Gpu,
    renderer: &mut Renderer,
    name: &str,
    size: (u32, u32),
    options: DebugOptions,
) -> usize {
    let view = options.view;
    let target = Target::with_format(gpu, size.0, size.1, ID_TARGET_FORMAT);
    renderer.set_debug(&options).unwrap();
    renderer.set_geometry(Geometry::Forward);
    let (forward, _) = target.render(gpu, renderer);
    renderer.set_geometry(Geometry::Visibility);
    assert_eq!(renderer.geometry(), Geometry::Visibility, "{name} {view:?}");
    let (visibility, _) = target.render(gpu, renderer);
    let ids = read_visibility_ids(gpu, renderer);
    let pixels = (size.0 * size.1) as usize;
    let drawn = ids.iter().filter(|id| id[0] != 0).count();
    assert!(drawn * 10 > pixels, "{name} {view:?}: {drawn} pixels drawn");
    let label = format!("{name}-{}", view.name());
    if view.is_id_view() {
        let triangle = |x: u32, y: u32| {
            let id = ids[(y * size.0 + x) as usize];
            [id[0], id[1] & VISIBILITY_TRIANGLE_MASK]
        };
        let mut interior = 0;
        for y in 1..size.1 - 1 {
            for x in 1..size.0 - 1 {
                let id = triangle(x, y);
                if id[0] == 0 || (0..9).any(|n| triangle(x + n % 3 - 1, y + n / 3 - 1) != id) {
                    continue;
                }
                let (f, v) = (forward.get_pixel(x, y).0, visibility.get_pixel(x, y).0);
                if decode_id(f) != decode_id(v) {
                    save_output(&format!("{label}-forward"), &forward);
                    save_output(&format!("{label}-visibility"), &visibility);
                }
                assert_eq!(decode_id(v), decode_id(f), "{label} at ({x}, {y})");
                interior += 1;
            }
        }
        assert!(interior * 5 > pixels, "{label}: {interior} interior pixels");
        eprintln!("{label}: ids equal at {interior} triangle-interior pixels");
    } else {
        let differ = mismatched_pixels(&forward, &visibility, 2);
        if differ * 100 > pixels {
            save_output(&format!("{label}-forward"), &forward);
            save_output(&format!("{label}-visibility"), &visibility);
        }
        assert!(
            differ * 100 <= pixels,
            "{label}: {differ} of {pixels} pixels differ by more than 2/255 (largest {})",
            largest_difference(&forward, &visibility)
        );
        eprintln!("{label}: {differ} of {pixels} pixels differ by more than 2/255");
    }
    let colors: std::collections::BTreeSet<[u8; 4]> = visibility
        .pixels()
        .zip(&ids)
        .filter(|(_, id)| id[0] != 0)
        .map(|(p, _)| p.0)
        .collect();
    colors.len()
}

/// Every view the material pass shades, and the missing-texture highlight
/// over the lit view, compared on `renderer`'s scene; each of `varied`
/// shows at least two colours there (the scene exercises it).
fn compare_every_view(
    gpu: &Gpu,
    renderer: &mut Renderer,
    (name, size): (&str, (u32, u32)),
    varied: &[DebugView],
) {
    eprintln!("{name}: the {:?} material pass", renderer.material_pass());
    // The traced views need ray queries (not built here); they do not
    // draw at all.
    for view in DebugView::ALL.into_iter().filter(|v| !v.traces_rays()) {
        let options = DebugOptions {
            view,
            ..Default::default()
        };
        renderer.set_debug(&options).unwrap();
        renderer.set_geometry(Geometry::Visibility);
        if !shaded_by_the_material_pass(view) {
            assert_eq!(
                renderer.geometry(),
                Geometry::Forward,
                "{view:?} draws forward"
            );
            continue;
        }
        if view != DebugView::Lit {
            let colors = compare_view(gpu, renderer, name, size, options);
            let wanted = if varied.contains(&view) { 2 } else { 1 };
            assert!(colors >= wanted, "{name} {view:?}: {colors} colours");
        }
    }
    let highlight = DebugOptions {
        highlight_missing: true,
        ..Default::default()
    };
    compare_view(gpu, renderer, name, size, highlight);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    gpu.finish();
}

/// A renderer of `config` (default capacities) whose material pass is
/// `material_pass`.
fn renderer_with_pass(gpu: &Gpu, material_pass: MaterialPass, config: RendererConfig) -> Renderer {
    let renderer = gpu.renderer_with(RendererConfig {
        capacities: Gpu::default_capacities(),
        material_pass,
        ..config
    });
    assert_eq!(renderer.material_pass(), material_pass);
    renderer
}

/// The demo scene at 160×90 (600 instances, 48 textures), its meshes with
/// simplified levels and level of detail on where `lod`.
fn demo_renderer(gpu: &Gpu, lod: bool, material_pass: MaterialPass) -> (Renderer, (u32, u32)) {
    let lod_settings = LodSettings {
        enabled: lod,
        ..Default::default()
    };
    let config = RendererConfig {
        lod: lod_settings,
        ..Default::default()
    };
    let mut renderer = renderer_with_pass(gpu, material_pass, config);
    let mesh_options = MeshOptions {
        lod_levels: if lod { unbound::lod::MAX_LOD_LEVELS } else { 0 },
        ..Default::default()
    };
    let size = small_demo_scene(&mut renderer, mesh_options);
    (renderer, size)
}

/// Every view of the demo scene through `material_pass`.
fn demo_scene_views(material_pass: MaterialPass) {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (mut renderer, size) = demo_renderer(&gpu, true, material_pass);
    compare_every_view(&gpu, &mut renderer, ("demo", size), &[DebugView::LodLevel]);
}

/// Every view of the shadowed scene through `material_pass`.
fn shadowed_scene_views(material_pass: MaterialPass) {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let config = RendererConfig {
        shadows: shadow_scene::settings(true),
        ..Default::default()
    };
    let mut renderer = renderer_with_pass(&gpu, material_pass, config);
    shadow_scene::build(&mut renderer, true);
    let size = shadow_scene::SIZE;
    let scene = ("shadows", (size, size));
    compare_every_view(&gpu, &mut renderer, scene, &[DebugView::Cascades]);
}

/// Every view of the overdraw scene through `material_pass`.
fn overdraw_scene_views(material_pass: MaterialPass) {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer_with_pass(&gpu, material_pass, Default::default());
    renderer.set_lighting(&flat_lighting()).unwrap();
    prepass_scene::overdraw_scene(&mut renderer);
    renderer
        .set_camera(&occlusion_scene::sliding_camera(4, 10))
        .unwrap();
    let size = (occlusion_scene::WIDTH, occlusion_scene::HEIGHT);
    let scene = ("overdraw", size);
    compare_every_view(&gpu, &mut renderer, scene, &[DebugView::LightCount]);
}

#[test]
fn every_view_of_the_demo_scene_is_the_same_through_the_fragment_material_pass() {
    demo_scene_views(MaterialPass::Fragment);
}

#[test]
fn every_view_of_the_demo_scene_is_the_same_through_the_compute_material_pass() {
    demo_scene_views(MaterialPass::Compute);
}

#[test]
fn every_view_of_the_shadowed_scene_is_the_same_through_the_fragment_material_pass() {
    shadowed_scene_views(MaterialPass::Fragment);
}

#[test]
fn every_view_of_the_shadowed_scene_is_the_same_through_the_compute_material_pass() {
    shadowed_scene_views(MaterialPass::Compute);
}

#[test]
fn every_view_of_the_overdraw_scene_is_the_same_through_the_fragment_material_pass() {
    overdraw_scene_views(MaterialPass::Fragment);
}

#[test]
fn every_view_of_the_overdraw_scene_is_the_same_through_the_compute_material_pass() {
    overdraw_scene_views(MaterialPass::Compute);
}

/// Whether a raster-view pixel is the compute rasteriser's orange rather
/// than the hardware's blue (`debug::raster_view_color`).
fn orange(pixel: [u8; 4]) -> bool {
    pixel[0] > pixel[2]
}

/// Whether a raster-view pixel is blue.
fn blue(pixel: [u8; 4]) -> bool {
    pixel[2] > pixel[0]
}

#[test]
fn the_raster_view_shows_which_rasteriser_drew_each_pixel() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (mut renderer, size) = demo_renderer(&gpu, false, MaterialPass::default());
    let target = Target::with_format(&gpu, size.0, size.1, ID_TARGET_FORMAT);
    // One phase: the compute rasteriser's buffer holds every pixel it drew.
    renderer.set_occlusion(false);
    let raster = DebugOptions {
        view: DebugView::Raster,
        ..Default::default()
    };
    renderer.set_debug(&raster).unwrap();
    renderer.set_geometry(Geometry::Forward);
    let (forward, _) = target.render(&gpu, &mut renderer);
    assert!(forward.pixels().any(|p| blue(p.0)), "forward draws blue");
    assert!(
        !forward.pixels().any(|p| orange(p.0)),
        "forward has no compute"
    );
    renderer.set_geometry(Geometry::Visibility);
    renderer.set_compute_raster(ComputeRaster::Buffer);
    assert_eq!(renderer.compute_raster(), ComputeRaster::Buffer);
    renderer.set_raster_threshold(0.0).unwrap();
    let (none, _) = target.render(&gpu, &mut renderer);
    assert!(
        !none.pixels().any(|p| orange(p.0)),
        "threshold 0: no compute"
    );
    renderer.set_raster_threshold(24.0).unwrap();
    let (image, _) = target.render(&gpu, &mut renderer);
    let ids = read_visibility_ids(&gpu, &renderer);
    let buffer = renderer.compute_raster_buffer().expect("it ran");
    let values = gpu.read_u32s(buffer, 0, buffer.size() / 4);
    let (mut compute, mut hardware) = (0, 0);
    let mut rasteriser_of = std::collections::BTreeMap::new();
    for (i, (pixel, id)) in image.pixels().zip(&ids).enumerate() {
        if id[0] == 0 {
            continue;
        }
        let by_compute = id[1] & VISIBILITY_COMPUTE != 0;
        let (x, y) = (i as u32 % size.0, i as u32 / size.0);
        assert_eq!(orange(pixel.0), by_compute, "orange at ({x}, {y})");
        assert_eq!(blue(pixel.0), !by_compute, "blue at ({x}, {y})");
        let first = *rasteriser_of.entry(id[0]).or_insert(by_compute);
        assert_eq!(first, by_compute, "object {} by one rasteriser", id[0] - 1);
        if by_compute {
            assert_ne!(values[2 * i..2 * i + 2], [0, 0], "buffer at ({x}, {y})");
            compute += 1;
        } else {
            hardware += 1;
        }
    }
    eprintln!("raster view: {compute} compute and {hardware} hardware pixels");
    assert!(
        compute > 100 && hardware > 100,
        "{compute} compute, {hardware} hardware"
    );
    gpu.finish();
}
