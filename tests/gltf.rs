//! glTF loading: FlightHelmet into the heap, arena and tables; typed errors
//! that leave the renderer as it was.

mod common;

use common::*;
use glam::Mat4;
use unbound::loaders::gltf::{
    GltfError, LoadOptions, LoadProgress, LoadStage, load_gltf, load_gltf_with, parse_gltf,
};

#[test]
fn flight_helmet_loads_and_renders() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let scene = load_gltf(
        &mut renderer,
        &asset("FlightHelmet/FlightHelmet.gltf"),
        Mat4::IDENTITY,
    )
    .unwrap();
    assert_eq!(scene.meshes.len(), 6);
    assert_eq!(scene.objects.len(), 6);
    assert_eq!(scene.materials.len(), 6);
    assert_eq!(
        scene.textures.len(),
        15,
        "5 materials x (base colour, normal, occlusion-roughness-metal) shared"
    );
    let (min, max) = scene.bounds;
    assert!(
        (max - min).length() > 0.1 && (max - min).length() < 10.0,
        "{min} {max}"
    );
    renderer.set_camera(&camera_framing_box(min, max)).unwrap();
    let target = Target::new(&gpu, 128, 128);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("flight_helmet", &image);
    let stats = renderer.latest_gpu_stats().unwrap();
    assert_eq!(stats.visible_instances, 6);
    assert!(stats.triangles > 90_000, "{}", stats.triangles);
    let background = image.get_pixel(0, 0).0;
    let covered = image.pixels().filter(|p| p.0 != background).count();
    assert!(covered > 128 * 128 / 8, "helmet covers {covered} pixels");
    gpu.finish();
}

/// KTX2 textures (RGB8, zstd-supercompressed) load; unsupported material
/// extensions degrade to the core material and are reported once.
#[test]
fn anisotropy_barn_lamp_loads_ktx2_and_reports_degraded_extensions() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let scene = load_gltf(
        &mut renderer,
        &asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
        Mat4::IDENTITY,
    )
    .unwrap();
    assert_eq!(scene.objects.len(), 3);
    assert_eq!(
        scene.textures.len(),
        3,
        "base colour (JPEG), normal and occlusion-roughness-metal (KTX2)"
    );
    let degraded: Vec<_> = scene
        .warnings
        .iter()
        .filter(|w| w.contains("KHR_materials_anisotropy"))
        .collect();
    assert_eq!(degraded.len(), 1, "{:?}", scene.warnings);
    assert!(degraded[0].contains("KHR_materials_transmission"));
    renderer
        .set_camera(&camera_framing_box(scene.bounds.0, scene.bounds.1))
        .unwrap();
    let target = Target::new(&gpu, 96, 96);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("barn_lamp", &image);
    let background = image.get_pixel(0, 0).0;
    assert!(
        image.pixels().filter(|p| p.0 != background).count() > 96 * 96 / 8,
        "the lamp is drawn"
    );
    gpu.finish();
}

#[test]
fn bad_files_are_typed_errors_and_leave_the_renderer_unchanged() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let before = (
        renderer.heap().live_counts(),
        renderer.materials().len(),
        renderer.objects().len(),
    );
    let missing = load_gltf(&mut renderer, &asset("nope/none.gltf"), Mat4::IDENTITY).unwrap_err();
    assert!(matches!(missing, GltfError::Io { .. }), "{missing}");
    let dir = std::env::temp_dir().join(format!("unbound-gltf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.gltf");
    std::fs::write(&garbage, b"{ this is not json").unwrap();
    let parse = load_gltf(&mut renderer, &garbage, Mat4::IDENTITY).unwrap_err();
    assert!(matches!(parse, GltfError::Parse { .. }), "{parse}");
    assert!(
        parse.to_string().contains("garbage.gltf"),
        "names the file: {parse}"
    );
    // A valid file whose buffer is missing: fails after nothing was added.
    let json = std::fs::read_to_string(asset("FlightHelmet/FlightHelmet.gltf")).unwrap();
    let no_bin = dir.join("no_bin.gltf");
    std::fs::write(&no_bin, json).unwrap();
    let io = load_gltf(&mut renderer, &no_bin, Mat4::IDENTITY).unwrap_err();
    assert!(matches!(io, GltfError::Resource { .. }), "{io}");
    assert!(
        io.to_string().contains("no_bin.gltf") && io.to_string().contains("FlightHelmet.bin"),
        "names the file and the missing buffer: {io}"
    );
    // A file whose images are missing fails after its buffer loaded: the
    // textures added before the failure are removed again.
    std::fs::copy(
        asset("FlightHelmet/FlightHelmet.bin"),
        dir.join("FlightHelmet.bin"),
    )
    .unwrap();
    let partial = load_gltf(&mut renderer, &no_bin, Mat4::IDENTITY).unwrap_err();
    assert!(matches!(partial, GltfError::Resource { .. }), "{partial}");
    let after = (
        renderer.heap().live_counts(),
        renderer.materials().len(),
        renderer.objects().len(),
    );
    assert_eq!(before, after, "a failed load leaves the renderer as it was");
    std::fs::remove_dir_all(dir).ok();
    // And it still renders.
    let target = Target::new(&gpu, 16, 16);
    target.render(&gpu, &mut renderer);
    gpu.finish();
}

/// The CPU stage alone: no device, no renderer.
#[test]
fn flight_helmet_parses_without_a_gpu() {
    let document = parse_gltf(&asset("FlightHelmet/FlightHelmet.gltf")).unwrap();
    assert_eq!(document.meshes.len(), 6);
    assert_eq!(document.placements.len(), 6);
    assert_eq!(document.materials.len(), 6);
    assert_eq!(document.textures.len(), 15);
    for texture in &document.textures {
        assert_eq!(
            texture.rgba.len(),
            (texture.width * texture.height * 4) as usize
        );
    }
    let blended: Vec<_> = document
        .materials
        .iter()
        .filter(|m| m.alpha_mode == unbound::AlphaMode::Blend)
        .collect();
    assert_eq!(blended.len(), 1, "the lenses");
    assert_eq!(
        document.materials.iter().filter(|m| m.double_sided).count(),
        1,
        "the hose"
    );
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let (min2, max2) = document.bounds(Mat4::from_translation(glam::Vec3::X));
    assert!(
        (min2 - min - glam::Vec3::X).length() < 1e-5
            && (max2 - max - glam::Vec3::X).length() < 1e-5
    );
}

/// Progress: every stage in order, each from 0 up to its total, never
/// decreasing.
#[test]
fn progress_is_reported_in_order_up_to_each_total() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let mut reports: Vec<LoadProgress> = Vec::new();
    let mut record = |p: LoadProgress| reports.push(p);
    let scene = load_gltf_with(
        &mut renderer,
        &asset("FlightHelmet/FlightHelmet.gltf"),
        LoadOptions {
            world_from_scene: Mat4::IDENTITY,
            progress: Some(&mut record),
        },
    )
    .unwrap();
    assert_eq!(scene.objects.len(), 6);
    let stages = [
        LoadStage::Buffers,
        LoadStage::Images,
        LoadStage::Meshes,
        LoadStage::UploadTextures,
        LoadStage::UploadMeshes,
        LoadStage::UploadObjects,
    ];
    let seen: Vec<LoadStage> = reports
        .iter()
        .map(|p| p.stage)
        .fold(Vec::new(), |mut v, s| {
            if v.last() != Some(&s) {
                v.push(s);
            }
            v
        });
    assert_eq!(seen, stages, "each stage once, in order");
    for stage in stages {
        let of_stage: Vec<&LoadProgress> = reports.iter().filter(|p| p.stage == stage).collect();
        assert_eq!(of_stage[0].done, 0, "{stage:?} starts at 0");
        let last = of_stage.last().unwrap();
        assert_eq!(last.done, last.total, "{stage:?} ends at its total");
        assert!(
            of_stage
                .windows(2)
                .all(|w| w[0].done <= w[1].done && w[0].total == w[1].total),
            "{stage:?} is monotonic: {of_stage:?}"
        );
    }
    let total = |stage| reports.iter().find(|p| p.stage == stage).unwrap().total;
    assert_eq!(total(LoadStage::Images), 15);
    assert_eq!(total(LoadStage::Meshes), 6);
    assert_eq!(
        total(LoadStage::UploadObjects),
        12,
        "6 materials + 6 objects"
    );
    gpu.finish();
}
