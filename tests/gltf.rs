//! glTF loading: FlightHelmet into the heap, arena and tables; typed errors
//! that leave the renderer as it was.

mod common;

use common::*;
use glam::Mat4;
use unbound::Renderer;
use unbound::loaders::gltf::{
    DocumentError, GltfDocument, GltfError, GltfScene, Indexed, LoadOptions, LoadProgress,
    LoadStage, MissingImages, OutOfRange, ParseOptions, TexelData, load_gltf, load_gltf_with,
    parse_gltf, parse_gltf_slice, parse_gltf_with_options,
};
use unbound_baseline::{BaselineError, BaselineRenderer};

/// A test GPU and a renderer with the crate's asset `relative` loaded.
fn load_asset(relative: &str) -> (Gpu, Renderer, GltfScene) {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let scene = load_gltf(&mut renderer, &asset(relative), Mat4::IDENTITY).unwrap();
    (gpu, renderer, scene)
}

#[test]
fn flight_helmet_loads_and_renders() {
    let (gpu, mut renderer, scene) = load_asset("FlightHelmet/FlightHelmet.gltf");
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
    let covered = drawn_pixels(&image, image.get_pixel(0, 0).0);
    assert!(covered > 128 * 128 / 8, "helmet covers {covered} pixels");
    gpu.finish();
}

/// KTX2 textures (RGB8, zstd-supercompressed) load; unsupported material
/// extensions degrade to the core material and are each reported once.
#[test]
fn anisotropy_barn_lamp_loads_ktx2_and_reports_degraded_extensions() {
    let (gpu, mut renderer, scene) = load_asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf");
    assert_eq!(scene.objects.len(), 3);
    assert_eq!(
        scene.textures.len(),
        3,
        "base colour (JPEG), normal and occlusion-roughness-metal (KTX2)"
    );
    // One warning per ignored extension, saying what is lost.
    for expected in [
        "KHR_materials_anisotropy: anisotropy not rendered",
        "KHR_materials_clearcoat: clear coat not rendered",
        "KHR_materials_transmission: transmission not rendered",
        "KHR_materials_volume: volume attenuation not rendered",
    ] {
        let named = scene.warnings.iter().filter(|w| *w == expected).count();
        assert_eq!(named, 1, "{expected}: {:?}", scene.warnings);
    }
    renderer
        .set_camera(&camera_framing_box(scene.bounds.0, scene.bounds.1))
        .unwrap();
    let target = Target::new(&gpu, 96, 96);
    let (image, _) = target.render(&gpu, &mut renderer);
    save_output("barn_lamp", &image);
    assert!(
        drawn_pixels(&image, image.get_pixel(0, 0).0) > 96 * 96 / 8,
        "the lamp is drawn"
    );
    gpu.finish();
}

#[test]
fn bad_files_are_typed_errors_and_leave_the_renderer_unchanged() {
    let (gpu, mut renderer) = Gpu::with_renderer();
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
    // A file whose images are missing, loaded strictly, fails in the parse
    // stage after its buffer loaded, before anything reaches the renderer
    // (by default they are missing textures: tests/gltf_missing.rs).
    std::fs::copy(
        asset("FlightHelmet/FlightHelmet.bin"),
        dir.join("FlightHelmet.bin"),
    )
    .unwrap();
    let strict = LoadOptions {
        parse: ParseOptions {
            missing_images: MissingImages::Error,
            ..ParseOptions::default()
        },
        ..LoadOptions::default()
    };
    let partial = load_gltf_with(&mut renderer, &no_bin, strict).unwrap_err();
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
            texture.rgba().expect("PNG and JPEG").len(),
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
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mut reports: Vec<LoadProgress> = Vec::new();
    let mut record = |p: LoadProgress| reports.push(p);
    let scene = load_gltf_with(
        &mut renderer,
        &asset("FlightHelmet/FlightHelmet.gltf"),
        LoadOptions {
            world_from_scene: Mat4::IDENTITY,
            progress: Some(&mut record),
            ..LoadOptions::default()
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

const CORPUS: &str = "/usr/share/assimp/models/glTF2";

fn corpus(relative: &str) -> std::path::PathBuf {
    let root = std::path::Path::new(CORPUS);
    assert!(
        root.is_dir(),
        "{CORPUS} is missing: install Debian's assimp-testmodels (apt-get install assimp-testmodels)"
    );
    root.join(relative)
}

/// Loads `path` into a fresh renderer and renders one `size` x `size` frame
/// with `camera` (default: framing the scene's bounds) and `lighting`.
fn render_file(
    gpu: &Gpu,
    path: &std::path::Path,
    size: u32,
    camera: Option<unbound::Camera>,
    lighting: &unbound::Lighting,
) -> (image::RgbaImage, GltfScene) {
    let caps = Gpu::default_capacities();
    let mut renderer = gpu.renderer(&caps);
    let scene = load_gltf(&mut renderer, path, Mat4::IDENTITY)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let camera = camera.unwrap_or_else(|| camera_framing_box(scene.bounds.0, scene.bounds.1));
    renderer.set_camera(&camera).unwrap();
    renderer.set_lighting(lighting).unwrap();
    let target = Target::new(gpu, size, size);
    let (image, _) = target.render(gpu, &mut renderer);
    (image, scene)
}

/// KHR_texture_transform's test scene, seen from the front over
/// [-1.7, 1.7]^2 (positions from the file's nodes). The sample is designed to
/// be checked by eye: the top tiles show UV.png offset so that only the
/// quadrant saying "U", "V" or "UV" (green, blue, cyan) is visible, and the
/// yellow "not supported" quadrant appears when the offset is ignored. In the
/// bottom tiles (rotation, scale, all three) an arrow texture must point at
/// the green "correct" marker, not at the yellow "not supported" or red
/// "error" one. Checked here: the colour of each top tile's upper-left
/// corner, and which marker is closest to the arrow's black pixels.
#[test]
fn texture_transform_tiles_show_the_correct_texture() {
    const SIZE: u32 = 256;
    const HALF: f32 = 1.7;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let (image, scene) = render_file(
        &gpu,
        &corpus("textureTransform/TextureTransformTest.gltf"),
        SIZE,
        Some(camera_framing_plane(HALF)),
        &flat_lighting(),
    );
    save_output("texture_transform", &image);
    assert_eq!(scene.objects.len(), 12);
    let scale = SIZE as f32 / (2.0 * HALF);
    let pixel =
        |x: f32, y: f32| *image.get_pixel(((x + HALF) * scale) as u32, ((HALF - y) * scale) as u32);
    let world = |px: u32, py: u32| {
        glam::Vec2::new(
            (px as f32 + 0.5) / scale - HALF,
            HALF - (py as f32 + 0.5) / scale,
        )
    };

    // Top row: offsets. Upper-left corner of each tile (inside the quadrant,
    // away from its tick).
    let classify = |p: image::Rgba<u8>| {
        let [r, g, b, _] = p.0;
        match (r > 120, g > 120, b > 120) {
            (false, true, false) => "green (U)",
            (false, false, true) => "blue (V)",
            (false, true, true) => "cyan (UV)",
            (true, true, false) => "yellow (not supported)",
            _ => "other",
        }
    };
    for (x, expected) in [(-1.1, "green (U)"), (0.0, "blue (V)"), (1.1, "cyan (UV)")] {
        let p = pixel(x - 0.35, 0.55 + 0.35);
        assert_eq!(classify(p), expected, "offset tile at x = {x}: {p:?}");
    }

    // Bottom row: the arrow's black pixels come closest to the correct
    // marker. Marker centres = tile translation + child translation.
    type Markers<'a> = &'a [(&'a str, glam::Vec2)];
    let tiles: [(&str, glam::Vec2, Markers<'_>); 3] = [
        (
            "rotation",
            glam::Vec2::new(-1.1, -0.55),
            &[
                ("correct", glam::Vec2::new(-0.079, -0.516)),
                ("not supported", glam::Vec2::new(0.278, -0.278)),
                ("error", glam::Vec2::new(0.516, 0.079)),
            ],
        ),
        (
            "scale",
            glam::Vec2::new(0.0, -0.55),
            &[
                ("correct", glam::Vec2::new(0.0185, -0.0185)),
                ("not supported", glam::Vec2::new(0.278, -0.278)),
            ],
        ),
        (
            "all",
            glam::Vec2::new(1.1, -0.55),
            &[("correct", glam::Vec2::new(-0.07, -0.25))],
        ),
    ];
    for (name, centre, markers) in tiles {
        let mut closest = vec![f32::MAX; markers.len()];
        let mut dark = 0;
        for (px, py, p) in image.enumerate_pixels() {
            let w = world(px, py);
            let inside = (w - centre).abs().max_element() < 0.48;
            if !inside || p.0[..3].iter().any(|&c| c > 60) {
                continue;
            }
            dark += 1;
            for (i, (_, offset)) in markers.iter().enumerate() {
                closest[i] = closest[i].min(w.distance(centre + *offset));
            }
        }
        assert!(dark > 50, "{name}: the arrow is drawn ({dark} dark pixels)");
        let nearest = (0..markers.len())
            .min_by(|&a, &b| closest[a].total_cmp(&closest[b]))
            .unwrap();
        assert_eq!(
            markers[nearest].0, "correct",
            "{name}: distances from the arrow to the markers {closest:?}"
        );
        assert!(
            closest[nearest] < 0.25,
            "{name}: the arrow ends {} from the correct marker",
            closest[nearest]
        );
    }
    gpu.finish();
}

/// FlightHelmet's lenses (the one BLEND material) blend: every pixel the
/// lenses cover lies strictly between what is behind them (rendered without
/// the lens object) and the lens's own shaded colour (rendered with the lens
/// material made opaque), in every channel where those two differ.
#[test]
fn flight_helmet_lenses_blend_between_background_and_lens() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let document = parse_gltf(&asset("FlightHelmet/FlightHelmet.gltf")).unwrap();
    let scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    let lens = document
        .materials
        .iter()
        .position(|m| m.alpha_mode == unbound::AlphaMode::Blend)
        .expect("a blended material");
    // Close to the goggles, so the lenses cover many pixels.
    let lens_objects: Vec<usize> = document
        .placements
        .iter()
        .enumerate()
        .filter(|(_, p)| document.meshes[p.mesh].material == lens)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(lens_objects.len(), 1);
    let lens_bounds = document.meshes[document.placements[lens_objects[0]].mesh].bounds;
    let mut camera = camera_framing_box(lens_bounds.min, lens_bounds.max);
    camera.position = lens_bounds.center + glam::Vec3::new(0.0, 0.0, 0.35);
    camera.z_near = 0.01;
    renderer.set_camera(&camera).unwrap();
    let target = Target::new(&gpu, 96, 96);
    let (blended, _) = target.render(&gpu, &mut renderer);

    let opaque = unbound::Material {
        alpha_mode: unbound::AlphaMode::Opaque,
        ..document.materials[lens]
            .to_material(&scene.textures, &scene.samplers)
            .unwrap()
    };
    renderer
        .update_material(scene.materials[lens], &opaque)
        .unwrap();
    let (lens_only, _) = target.render(&gpu, &mut renderer);
    renderer
        .remove_object(scene.objects[lens_objects[0]])
        .unwrap();
    let (behind, _) = target.render(&gpu, &mut renderer);
    save_output("flight_helmet_lenses_blended", &blended);
    save_output("flight_helmet_lenses_opaque", &lens_only);
    save_output("flight_helmet_lenses_behind", &behind);

    let (mut covered, mut between) = (0, 0);
    for ((c, l), b) in blended
        .pixels()
        .zip(lens_only.pixels())
        .zip(behind.pixels())
    {
        let channels: Vec<usize> = (0..3).filter(|&i| l[i].abs_diff(b[i]) >= 24).collect();
        if channels.is_empty() {
            continue;
        }
        covered += 1;
        let strictly_between = channels.iter().all(|&i| {
            let (lo, hi) = (l[i].min(b[i]), l[i].max(b[i]));
            c[i] > lo && c[i] < hi
        });
        if strictly_between {
            between += 1;
        }
    }
    eprintln!("lenses: {between} of {covered} covered pixels strictly between");
    assert!(covered > 500, "the lenses cover {covered} pixels");
    assert!(
        between * 100 >= covered * 98,
        "{between} of {covered} lens pixels lie strictly between background and lens"
    );
    gpu.finish();
}

/// BoxTextured: the pixel colour equals the texel the geometry maps there.
/// Each sample pixel's ray is intersected with the document's triangles on
/// the CPU; the hit's UV picks a texel of the decoded base colour texture.
/// Only texels whose neighbourhood (twice the pixel's footprint in texels)
/// is uniform are compared, so filtering and mips cannot change them; flat
/// lighting shows them as `flat_shown_srgb` (the rough dielectric's albedo,
/// facing the camera; the box's faces are seen obliquely, which the
/// tolerance covers). Tolerance: 3 per channel.
#[test]
fn box_textured_shows_known_texels_at_known_pixels() {
    const SIZE: u32 = 128;
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let path = corpus("BoxTextured-glTF/BoxTextured.gltf");
    let document = parse_gltf(&path).unwrap();
    let (min, max) = document.bounds(Mat4::IDENTITY);
    let camera = camera_framing_box(min, max);
    let (image, _) = render_file(&gpu, &path, SIZE, Some(camera), &flat_lighting());
    save_output("box_textured_texels", &image);

    let material = &document.materials[document.meshes[0].material];
    assert_eq!(material.base_color_factor, glam::Vec4::ONE);
    let base_color = material.base_color.unwrap();
    let sampler = &document.samplers[base_color.sampler];
    assert_eq!(
        (sampler.address_u, sampler.address_v),
        (
            wgpu::AddressMode::MirrorRepeat,
            wgpu::AddressMode::ClampToEdge
        )
    );
    let texture = &document.textures[base_color.texture];
    let texel = |x: i64, y: i64| {
        let (x, y) = (
            x.clamp(0, i64::from(texture.width) - 1) as usize,
            y.clamp(0, i64::from(texture.height) - 1) as usize,
        );
        let at = (y * texture.width as usize + x) * 4;
        let rgba = texture.rgba().expect("a PNG");
        [rgba[at], rgba[at + 1], rgba[at + 2]]
    };
    let world_from_clip = camera.clip_from_world().inverse();
    let uv_at = |px: f32, py: f32| {
        let ndc = glam::Vec2::new(
            (px + 0.5) / SIZE as f32 * 2.0 - 1.0,
            1.0 - (py + 0.5) / SIZE as f32 * 2.0,
        );
        let far = world_from_clip.project_point3(ndc.extend(1.0));
        hit_uv(
            &document,
            camera.position,
            (far - camera.position).normalize(),
        )
    };
    // The file's sampler: mirrored repeat in u (its UVs run 0..6), clamp in v.
    let mirrored = |u: f32| {
        let f = u - u.floor();
        if u.floor() as i64 % 2 == 0 {
            f
        } else {
            1.0 - f
        }
    };
    let mut checked = 0;
    for py in (4..SIZE).step_by(8) {
        for px in (4..SIZE).step_by(8) {
            let (x, y) = (px as f32, py as f32);
            let (Some(uv), Some(right), Some(down)) =
                (uv_at(x, y), uv_at(x + 1.0, y), uv_at(x, y + 1.0))
            else {
                continue;
            };
            // Texels one pixel spans: the filter (mips included) reads at
            // most about twice that far.
            let size = glam::Vec2::new(texture.width as f32, texture.height as f32);
            let footprint = ((right - uv) * size)
                .abs()
                .max_element()
                .max(((down - uv) * size).abs().max_element());
            let radius = (2.0 * footprint).ceil().max(2.0) as i64;
            if radius > 12 {
                continue;
            }
            let (tx, ty) = (
                (mirrored(uv.x) * size.x).floor() as i64,
                (uv.y.clamp(0.0, 1.0) * size.y).floor() as i64,
            );
            let centre = texel(tx, ty);
            let uniform = (-radius..=radius).all(|dy| {
                (-radius..=radius).all(|dx| {
                    let t = texel(tx + dx, ty + dy);
                    (0..3).all(|c| t[c].abs_diff(centre[c]) <= 2)
                })
            });
            if !uniform {
                continue;
            }
            let actual = *image.get_pixel(px, py);
            let shown = flat_shown_srgb([centre[0], centre[1], centre[2], 255]);
            assert!(
                color_distance(actual, shown) <= 3,
                "pixel ({px}, {py}) is {actual:?}, texel ({tx}, {ty}) is {centre:?}, shown as {shown:?}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} pixels checked");
    gpu.finish();
}

/// UV of the nearest placed triangle hit by a ray (Moller-Trumbore).
fn hit_uv(
    document: &unbound::loaders::gltf::GltfDocument,
    origin: glam::Vec3,
    direction: glam::Vec3,
) -> Option<glam::Vec2> {
    let mut best: Option<(f32, glam::Vec2)> = None;
    for placement in &document.placements {
        let mesh = &document.meshes[placement.mesh];
        let uvs = mesh.uv0.as_ref()?;
        for tri in mesh.indices.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| {
                placement
                    .scene_from_object
                    .transform_point3(glam::Vec3::from(mesh.positions[tri[k] as usize]))
            });
            let (e1, e2) = (b - a, c - a);
            let p = direction.cross(e2);
            let det = e1.dot(p);
            if det.abs() < 1e-9 {
                continue;
            }
            let s = origin - a;
            let u = s.dot(p) / det;
            let q = s.cross(e1);
            let v = direction.dot(q) / det;
            let t = e2.dot(q) / det;
            if u < 0.0 || v < 0.0 || u + v > 1.0 || t <= 0.0 {
                continue;
            }
            if best.is_none_or(|(bt, _)| t < bt) {
                let [ua, ub, uc] = [0, 1, 2].map(|k| glam::Vec2::from(uvs[tri[k] as usize]));
                best = Some((t, ua * (1.0 - u - v) + ub * u + uc * v));
            }
        }
    }
    best.map(|(_, uv)| uv)
}

/// Every must-load file of issue 5 renders to its reference image
/// (`tests/reference/gltf_*.png`, 64x64, made on lavapipe and checked by eye
/// before blessing; `UNBOUND_BLESS=1` rewrites them). Camera framing the
/// scene's bounds, default lighting. Tolerance: a pixel matches when every
/// channel is within 8; at most 1% of pixels may differ (edges and filtering
/// on other drivers or Mesa versions).
#[test]
fn must_load_files_match_reference_images() {
    let mut files: Vec<(String, std::path::PathBuf)> = [
        ("box_textured", "BoxTextured-glTF/BoxTextured.gltf"),
        (
            "box_textured_glb",
            "BoxTextured-glTF-Binary/BoxTextured.glb",
        ),
        (
            "box_textured_embedded",
            "BoxTextured-glTF-Embedded/BoxTextured.gltf",
        ),
        (
            "2_cylinder_engine",
            "2CylinderEngine-glTF-Binary/2CylinderEngine.glb",
        ),
        (
            "texture_transform",
            "textureTransform/TextureTransformTest.gltf",
        ),
        (
            "animated_morph_cube",
            "glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf",
        ),
        ("simple_skin", "simple_skin/simple_skin.gltf"),
        ("clear_coat", "ClearCoat-glTF/ClearCoatTest.gltf"),
    ]
    .into_iter()
    .map(|(name, file)| (name.to_owned(), corpus(file)))
    .collect();
    // The triangle kinds of glTF-Asset-Generator's Mesh_PrimitiveMode
    // (triangles, strips, fans; indexed or not).
    for n in [4, 5, 6, 11, 12, 13, 14, 15] {
        files.push((
            format!("mesh_primitive_mode_{n:02}"),
            corpus(&format!(
                "glTF-Asset-Generator/Mesh_PrimitiveMode/Mesh_PrimitiveMode_{n:02}.gltf"
            )),
        ));
    }
    files.push((
        "flight_helmet".into(),
        asset("FlightHelmet/FlightHelmet.gltf"),
    ));
    files.push((
        "anisotropy_barn_lamp".into(),
        asset("AnisotropyBarnLamp/AnisotropyBarnLamp.gltf"),
    ));
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    for (name, path) in &files {
        let (image, scene) = render_file(&gpu, path, 64, None, &unbound::Lighting::default());
        assert!(!scene.objects.is_empty(), "{name}: no objects");
        let covered = drawn_pixels(&image, image.get_pixel(0, 0).0);
        assert!(
            covered > 64 * 64 / 20,
            "{name}: only {covered} pixels drawn"
        );
        compare_with_reference(&gpu, &format!("gltf_{name}"), &image, 8, 0.01);
    }
    gpu.finish();
}

/// BC1 from a KTX2 file is uploaded as it is (sRGB for a base colour
/// texture, every stored level) and sampled: the quad filling the view shows
/// level 0's red when magnified and level 2's blue at a quarter of its size. lavapipe has TEXTURE_COMPRESSION_BC; an adapter without it
/// fails this test loudly rather than skipping.
#[test]
fn bc1_ktx2_textures_upload_as_they_are() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    assert!(
        gpu.device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC),
        "the test adapter should offer BC compression (unbound requests it when available)"
    );
    let dir = std::env::temp_dir().join(format!("unbound-bc1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bc1-quad.gltf");
    let ktx2 = ktx2_file(133, 8, 8, &bc1_levels());
    std::fs::write(&path, textured_quad_gltf(&ktx2)).unwrap();

    let document = parse_gltf(&path).unwrap();
    assert_eq!(document.textures.len(), 1);
    let texture = &document.textures[0];
    assert_eq!(
        texture.format(),
        wgpu::TextureFormat::Bc1RgbaUnormSrgb,
        "base colour: the sRGB twin"
    );
    match &texture.data {
        unbound::loaders::gltf::TexelData::Compressed { levels, .. } => {
            assert_eq!(levels, &bc1_levels());
        }
        other => panic!("expected BC levels, got {other:?}"),
    }
    let (image, scene) = render_file(
        &gpu,
        &path,
        16,
        Some(camera_framing_plane(0.5)),
        &flat_lighting(),
    );
    assert_eq!(scene.textures.len(), 1);
    let centre = *image.get_pixel(8, 8);
    assert!(
        color_distance(centre, flat_shown_srgb([255, 0, 0, 255])) <= 2,
        "level 0 is red: {centre:?}"
    );
    // 8 texels over 2 pixels: level 2 (nearest mip), the stored blue, not
    // a chain regenerated from level 0.
    let (small, _) = render_file(
        &gpu,
        &path,
        2,
        Some(camera_framing_plane(0.5)),
        &flat_lighting(),
    );
    std::fs::remove_dir_all(&dir).ok();
    let pixel = *small.get_pixel(1, 1);
    assert!(
        color_distance(pixel, flat_shown_srgb([0, 0, 255, 255])) <= 2,
        "level 2 is blue: {pixel:?}"
    );
    gpu.finish();
}

/// On a device created without TEXTURE_COMPRESSION_BC the same file is a
/// typed error (the heap's MissingFeature) and the renderer is unchanged;
/// the baseline refuses it with its own typed error.
#[test]
fn bc_textures_without_the_feature_are_a_typed_error() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    // Made and dropped in the lifecycle turn, as `gpu`'s device is.
    let no_bc = gpu.withholding(wgpu::Features::TEXTURE_COMPRESSION_BC);
    let (device, queue) = (&no_bc.device, &no_bc.queue);
    assert!(
        !device
            .features()
            .contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
    );
    let mut renderer = unbound::Renderer::new(
        &gpu.adapter,
        device,
        queue,
        unbound::RendererConfig {
            capacities: caps,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("unbound-nobc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bc1-quad.gltf");
    std::fs::write(
        &path,
        textured_quad_gltf(&ktx2_file(133, 8, 8, &bc1_levels())),
    )
    .unwrap();
    let before = (renderer.heap().live_counts(), renderer.materials().len());
    let error = load_gltf(&mut renderer, &path, Mat4::IDENTITY).unwrap_err();
    // The bind-per-draw baseline refuses it with a typed error too.
    let document = unbound::loaders::gltf::parse_gltf(&path).unwrap();
    let baseline = unbound_baseline::BaselineRenderer::from_gltf(
        device,
        queue,
        &document,
        Mat4::IDENTITY,
        &camera_framing_plane(1.0),
        &flat_lighting(),
        wgpu::TextureFormat::Rgba8UnormSrgb,
    );
    assert!(
        matches!(
            baseline,
            Err(unbound_baseline::BaselineError::MissingFeature { texture: 0, missing, .. })
                if missing.contains(wgpu::Features::TEXTURE_COMPRESSION_BC)
        ),
        "{:?}",
        baseline.err()
    );
    std::fs::remove_dir_all(&dir).ok();
    match &error {
        GltfError::Renderer { source, .. } => assert!(
            matches!(
                **source,
                unbound::Error::Heap(unbound::HeapError::MissingFeature { .. })
            ),
            "{error}"
        ),
        other => panic!("expected a renderer error, got {other}"),
    }
    assert!(
        error.to_string().contains("TEXTURE_COMPRESSION_BC"),
        "{error}"
    );
    assert_eq!(
        before,
        (renderer.heap().live_counts(), renderer.materials().len())
    );
    no_bc.finish();
}

/// A BC level of the wrong size is refused by the strict parse stage,
/// naming the image and the level; by default the image is missing, with a
/// warning naming both.
#[test]
fn bc_levels_of_the_wrong_size_are_parse_errors() {
    let dir = std::env::temp_dir().join(format!("unbound-bcsize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("short-level.gltf");
    let mut levels = bc1_levels();
    levels[0].pop();
    std::fs::write(&path, textured_quad_gltf(&ktx2_file(133, 8, 8, &levels))).unwrap();
    let strict = ParseOptions {
        missing_images: MissingImages::Error,
        ..ParseOptions::default()
    };
    let error = parse_gltf_with_options(&path, &strict, None).unwrap_err();
    let lenient = parse_gltf(&path).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(matches!(error, GltfError::Invalid { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains("short-level.gltf") && text.contains("image 0") && text.contains("level 0"),
        "{text}"
    );
    assert_eq!(lenient.textures[0].data, TexelData::Missing);
    assert_eq!(lenient.warnings.len(), 1, "{:?}", lenient.warnings);
    let warning = &lenient.warnings[0];
    assert!(
        warning.starts_with("image 0 (data URI): undecodable: KTX2 level 0 holds")
            && warning.ends_with("; shown as the missing texture"),
        "{warning}"
    );
}

/// Uploads that the renderer refuses part-way (a full texture array, a full
/// object table) remove everything they added, samplers included, and leave
/// the renderer usable: an earlier scene still renders and a smaller file
/// still loads.
#[test]
fn failed_uploads_roll_back_and_leave_earlier_scenes_intact() {
    // FlightHelmet's 15 textures overflow 10 slots (found while adding);
    // TextureTransformTest's 12 objects overflow 4 (found before adding).
    for (what, caps, file) in [
        (
            "textures",
            unbound::Capacities {
                textures_2d: 10,
                ..Gpu::default_capacities()
            },
            asset("FlightHelmet/FlightHelmet.gltf"),
        ),
        (
            "objects",
            unbound::Capacities {
                objects: 4,
                ..Gpu::default_capacities()
            },
            corpus("textureTransform/TextureTransformTest.gltf"),
        ),
    ] {
        let gpu = Gpu::new(&caps);
        let mut renderer = gpu.renderer(&caps);
        let earlier = load_gltf(
            &mut renderer,
            &corpus("BoxTextured-glTF/BoxTextured.gltf"),
            Mat4::IDENTITY,
        )
        .unwrap();
        let counts = |r: &unbound::Renderer| {
            (
                r.heap().live_counts(),
                r.materials().len(),
                r.objects().len(),
                r.arena().mesh_slots(),
            )
        };
        let before = counts(&renderer);
        let document = parse_gltf(&file).unwrap();
        let error = document
            .upload(&mut renderer, Mat4::IDENTITY, None)
            .unwrap_err();
        // Too many objects is found before anything is added
        // (ObjectCapacity); too many textures while adding (rolled back).
        assert!(
            match what {
                "objects" => matches!(error, GltfError::ObjectCapacity { objects: 12, .. }),
                _ => matches!(error, GltfError::Renderer { .. }),
            },
            "{what}: {error}"
        );
        assert!(
            error.to_string().contains(file.to_str().unwrap()),
            "{what}: {error}"
        );
        let after = counts(&renderer);
        assert_eq!(
            (before.0, before.1, before.2),
            (after.0, after.1, after.2),
            "{what}: the failed upload left something behind"
        );
        renderer
            .set_camera(&camera_framing_box(earlier.bounds.0, earlier.bounds.1))
            .unwrap();
        renderer.set_lighting(&flat_lighting()).unwrap();
        let target = Target::new(&gpu, 32, 32);
        let (image, _) = target.render(&gpu, &mut renderer);
        assert!(
            drawn_pixels(&image, image.get_pixel(0, 0).0) > 100,
            "{what}: the earlier box still renders"
        );
        let second = load_gltf(
            &mut renderer,
            &corpus("BoxTextured-glTF-Binary/BoxTextured.glb"),
            Mat4::from_translation(glam::Vec3::X * 2.0),
        )
        .unwrap();
        assert_eq!(second.objects.len(), 1, "{what}");
        gpu.finish();
    }
}

/// The textured quad with a 1x1 red RGBA8 image, parsed, and edited by
/// `edit` (its text as JSON) first.
fn red_quad(edit: impl FnOnce(&mut serde_json::Value)) -> GltfDocument {
    let text = textured_quad_gltf(&ktx2_file(37, 1, 1, &[vec![255, 0, 0, 255]]));
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut json);
    parse_gltf_slice(
        json.to_string().as_bytes(),
        std::path::Path::new("quad.gltf"),
        None,
    )
    .unwrap()
}

fn baseline(gpu: &Gpu, document: &GltfDocument) -> Result<BaselineRenderer, BaselineError> {
    BaselineRenderer::from_gltf(
        &gpu.device,
        &gpu.queue,
        document,
        Mat4::IDENTITY,
        &camera_framing_plane(0.5),
        &flat_lighting(),
        wgpu::TextureFormat::Rgba8UnormSrgb,
    )
}

/// A document edited through its public fields (issue 12): indices out of
/// range are a typed error from `upload` (nothing added), `validate`,
/// `to_material` and the baseline, `bounds` skips what it cannot place, and
/// texels or geometry that do not hold together are refused by the
/// renderer and the baseline. The renderer then still loads and renders the
/// unedited quad.
#[test]
fn edited_documents_are_typed_errors_not_panics() {
    let caps = Gpu::default_capacities();
    let gpu = Gpu::new(&caps);
    let mut renderer = gpu.renderer(&caps);
    let quad = red_quad(|_| {});
    quad.validate().unwrap();
    let out_of_range = |kind, index, count| OutOfRange { kind, index, count };
    type Edit = fn(&mut GltfDocument);
    let cases: [(Edit, DocumentError); 4] = [
        (
            |d| d.materials[0].base_color.as_mut().unwrap().texture = 5,
            DocumentError::Material {
                material: 0,
                source: out_of_range(Indexed::Texture, 5, 1),
            },
        ),
        (
            |d| d.materials[0].base_color.as_mut().unwrap().sampler = 3,
            DocumentError::Material {
                material: 0,
                source: out_of_range(Indexed::Sampler, 3, 1),
            },
        ),
        (
            |d| d.meshes[0].material = 2,
            DocumentError::Mesh {
                mesh: 0,
                source: out_of_range(Indexed::Material, 2, 1),
            },
        ),
        (
            |d| d.placements[0].mesh = 7,
            DocumentError::Placement {
                placement: 0,
                source: out_of_range(Indexed::Mesh, 7, 1),
            },
        ),
    ];
    let counts = |r: &Renderer| {
        (
            r.heap().live_counts(),
            r.materials().len(),
            r.objects().len(),
            r.arena().mesh_slots(),
        )
    };
    let before = counts(&renderer);
    for (edit, expected) in cases {
        let mut document = quad.clone();
        edit(&mut document);
        assert_eq!(document.validate(), Err(expected.clone()));
        match document.upload(&mut renderer, Mat4::IDENTITY, None) {
            Err(GltfError::Document { source, .. }) => assert_eq!(source, expected),
            other => panic!("{expected}: {other:?}"),
        }
        assert_eq!(counts(&renderer), before, "{expected}: nothing added");
        let (min, max) = document.bounds(Mat4::IDENTITY);
        assert_eq!(
            min.x > max.x,
            matches!(expected, DocumentError::Placement { .. })
        );
        assert_eq!(
            baseline(&gpu, &document).err(),
            Some(BaselineError::Document(expected))
        );
    }

    // `to_material` with too few handles, then the texels and geometry the
    // renderer checks itself.
    let scene = quad.upload(&mut renderer, Mat4::IDENTITY, None).unwrap();
    let material = &quad.materials[0];
    assert_eq!(
        material.to_material(&scene.textures, &[]),
        Err(out_of_range(Indexed::Sampler, 0, 0))
    );
    assert_eq!(
        material.to_material(&[], &scene.samplers),
        Err(out_of_range(Indexed::Texture, 0, 0))
    );
    let mut short_texels = quad.clone();
    short_texels.textures[0].data = TexelData::Rgba8(vec![255, 0, 0]);
    let mut bad_index = quad.clone();
    bad_index.meshes[0].indices[2] = 9;
    for (what, document) in [("texels", short_texels), ("geometry", bad_index)] {
        let before = counts(&renderer);
        let error = document
            .upload(&mut renderer, Mat4::IDENTITY, None)
            .unwrap_err();
        assert!(
            matches!(error, GltfError::Renderer { .. }),
            "{what}: {error}"
        );
        assert_eq!(counts(&renderer), before, "{what}: rolled back");
        let refused = baseline(&gpu, &document).err();
        assert!(
            matches!(
                refused,
                Some(BaselineError::Document(
                    DocumentError::Texels { texture: 0, .. }
                        | DocumentError::Geometry { mesh: 0, .. }
                ))
            ),
            "{what}: {refused:?}"
        );
    }
    baseline(&gpu, &quad).unwrap();

    renderer.set_camera(&camera_framing_plane(0.5)).unwrap();
    renderer.set_lighting(&flat_lighting()).unwrap();
    let (image, _) = Target::new(&gpu, 8, 8).render(&gpu, &mut renderer);
    let centre = *image.get_pixel(4, 4);
    let red = flat_shown_srgb([255, 0, 0, 255]);
    assert!(
        color_distance(centre, red) <= 2,
        "the quad is red ({red:?}): {centre:?}"
    );
    gpu.finish();
}

/// A file without a scene loads as an empty scene (issue 12): no objects,
/// empty bounds (min > max), the warning passed on, and frames render.
#[test]
fn files_without_a_scene_upload_as_empty_scenes() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let document = red_quad(|json| {
        let root = json.as_object_mut().unwrap();
        root.remove("scene");
        root.remove("scenes");
    });
    let scene = document
        .upload(&mut renderer, Mat4::IDENTITY, None)
        .unwrap();
    assert!(scene.objects.is_empty());
    assert_eq!(scene.meshes.len(), 1, "meshes are uploaded all the same");
    assert!(scene.bounds.0.x > scene.bounds.1.x, "{:?}", scene.bounds);
    assert_eq!(scene.warnings, ["no scene: nothing is placed"]);
    renderer.set_camera(&camera_framing_plane(0.5)).unwrap();
    let (image, stats) = Target::new(&gpu, 8, 8).render(&gpu, &mut renderer);
    assert_eq!(
        drawn_pixels(&image, image.get_pixel(0, 0).0),
        0,
        "{stats:?}"
    );
    gpu.finish();
}
