//! Debug views encode what they claim: id views decode back to the material,
//! object, draw and texture slot at known pixels; the shading views show base
//! colour, normals, UVs, tangents and the metallic, roughness, occlusion and
//! emissive values the material's texels hold; the missing-texture highlight, the frozen cull
//! camera and the culled-bounds lines show what the GPU decided.

mod common;

use common::*;
use glam::Vec3;
use unbound::debug::decode_id;
use unbound::passes::cull::DRAW_ARGS_SIZE;
use unbound::{
    AlphaMode, DebugOptions, DebugView, Error, ID_TARGET_FORMAT, Material, MeshHandle, ObjectDesc,
    ObjectHandle, RenderError, Renderer, TextureRef, shapes,
};

const SIZE: u32 = 64;

/// Pixel at the centre of the quad at `(x, y)` in world units, with
/// `camera_framing_plane(2.0)` (the square [-2, 2]^2 fills the target).
fn pixel_of(x: f32, y: f32) -> (u32, u32) {
    let scale = SIZE as f32 / 4.0;
    (((x + 2.0) * scale) as u32, ((2.0 - y) * scale) as u32)
}

/// (object, material slot, object slot, base colour texture slot, centre)
type Quad = (ObjectHandle, u32, u32, u32, (f32, f32));

struct Quads {
    quads: Vec<Quad>,
    /// Each quad's mesh.
    meshes: Vec<MeshHandle>,
}

/// Four quads in a 2x2 grid: two on one mesh (opaque), two on a second mesh
/// (one double-sided, one blended), each with its own material and texture.
/// A few objects, materials and textures are added and removed first, so
/// slots are not simply 0, 1, 2, 3.
fn four_quads(renderer: &mut Renderer) -> Quads {
    let mesh_a = flat_quad_scene(renderer, 2.0);
    let mesh_b = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    let sampler = renderer.heap().default_sampler();
    let spacer_at = quad_at(Vec3::new(50.0, 0.0, 0.0), 1.0, 1.0);
    let spacer = add_solid_object(renderer, mesh_a, [9, 9, 9, 255], spacer_at).object;
    let mut quads = Vec::new();
    let mut meshes = Vec::new();
    let layout = [
        (
            -1.0,
            1.0,
            mesh_a,
            AlphaMode::Opaque,
            false,
            [200, 30, 30, 255],
        ),
        (
            1.0,
            1.0,
            mesh_a,
            AlphaMode::Opaque,
            false,
            [30, 200, 30, 255],
        ),
        (
            -1.0,
            -1.0,
            mesh_b,
            AlphaMode::Opaque,
            true,
            [30, 30, 200, 255],
        ),
        (
            1.0,
            -1.0,
            mesh_b,
            AlphaMode::Blend,
            false,
            [200, 200, 30, 128],
        ),
    ];
    for (x, y, mesh, alpha_mode, double_sided, color) in layout {
        let texture = solid_texture(renderer, color);
        let material = renderer
            .add_material(&Material {
                alpha_mode,
                double_sided,
                ..material_showing(texture, sampler)
            })
            .unwrap();
        let object = renderer
            .add_object(&ObjectDesc {
                mesh,
                material,
                world_from_object: quad_at(Vec3::new(x, y, 0.0), 1.6, 1.6),
            })
            .unwrap();
        meshes.push(mesh);
        quads.push((
            object,
            renderer.materials().resolve(material).unwrap(),
            renderer.objects().resolve(object).unwrap(),
            texture.slot(),
            (x, y),
        ));
    }
    renderer.remove_object(spacer).unwrap();
    Quads { quads, meshes }
}

/// A test GPU and a renderer showing [`four_quads`].
fn gpu_with_four_quads() -> (Gpu, Renderer, Quads) {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quads = four_quads(&mut renderer);
    (gpu, renderer, quads)
}

/// Renders with `options` and saves the image as `debug_{name}`.
fn render_debug(
    gpu: &Gpu,
    renderer: &mut Renderer,
    target: &Target,
    options: &DebugOptions,
    name: &str,
) -> image::RgbaImage {
    renderer.set_debug(options).unwrap();
    let (image, _) = target.render(gpu, renderer);
    save_output(&format!("debug_{name}"), &image);
    image
}

fn render_view(
    gpu: &Gpu,
    renderer: &mut Renderer,
    target: &Target,
    view: DebugView,
) -> image::RgbaImage {
    let options = DebugOptions {
        view,
        ..Default::default()
    };
    render_debug(gpu, renderer, target, &options, view.name())
}

/// Renders each of `views` into one linear target ([`ID_TARGET_FORMAT`]):
/// ids, and normals and UVs exact to a byte or two.
fn render_linear<const N: usize>(
    gpu: &Gpu,
    renderer: &mut Renderer,
    views: [DebugView; N],
) -> [image::RgbaImage; N] {
    let target = Target::with_format(gpu, SIZE, SIZE, ID_TARGET_FORMAT);
    views.map(|view| render_view(gpu, renderer, &target, view))
}

#[test]
fn id_views_decode_to_material_object_and_texture_slot() {
    let (gpu, mut renderer, scene) = gpu_with_four_quads();
    let [material, object, slot] = render_linear(
        &gpu,
        &mut renderer,
        [
            DebugView::MaterialIndex,
            DebugView::ObjectIndex,
            DebugView::TextureSlot,
        ],
    );
    for &(_, material_slot, object_slot, texture_slot, (x, y)) in &scene.quads {
        let (px, py) = pixel_of(x, y);
        assert_eq!(
            decode_id(material.get_pixel(px, py).0),
            Some(material_slot),
            "material view at ({px}, {py})"
        );
        assert_eq!(
            decode_id(object.get_pixel(px, py).0),
            Some(object_slot),
            "object view at ({px}, {py})"
        );
        assert_eq!(
            decode_id(slot.get_pixel(px, py).0),
            Some(texture_slot),
            "texture slot view at ({px}, {py})"
        );
    }
    // The slots are not trivially the quads' order.
    assert!(scene.quads.iter().any(|q| q.2 != 0), "spacer shifted slots");
    // Between the quads nothing was drawn.
    let (cx, cy) = pixel_of(0.0, 0.0);
    assert_eq!(decode_id(object.get_pixel(cx, cy).0), None);
    gpu.finish();
}

/// The draw view names, at each pixel, an indirect draw whose read-back
/// record covers a range of the visible list that holds the object drawn
/// there (read from the object view).
#[test]
fn draw_view_names_draws_whose_records_hold_the_object() {
    let (gpu, mut renderer, scene) = gpu_with_four_quads();
    let [object, draw] = render_linear(
        &gpu,
        &mut renderer,
        [DebugView::ObjectIndex, DebugView::DrawIndex],
    );
    let mut draws_seen = Vec::new();
    for &(_, _, object_slot, _, (x, y)) in &scene.quads {
        let (px, py) = pixel_of(x, y);
        assert_eq!(decode_id(object.get_pixel(px, py).0), Some(object_slot));
        let d = decode_id(draw.get_pixel(px, py).0).expect("a draw at a quad");
        // DrawIndexedIndirectArgs: index_count, instance_count, first_index,
        // base_vertex, first_instance.
        let record = gpu.read_u32s(
            renderer.indirect_draws_buffer(),
            u64::from(d) * DRAW_ARGS_SIZE,
            DRAW_ARGS_SIZE / size_of::<u32>() as u64,
        );
        let (instances, first) = (record[1], record[4]);
        assert!(instances > 0, "draw {d}: {record:?}");
        let visible = gpu.read_u32s(
            renderer.visible_instances_buffer(),
            u64::from(first) * size_of::<u32>() as u64,
            u64::from(instances),
        );
        assert!(
            visible.contains(&object_slot),
            "draw {d} covers {visible:?}, not object {object_slot}"
        );
        draws_seen.push(d);
    }
    // Same mesh and pipeline: one draw; other mesh or pipeline: another.
    assert_eq!(draws_seen[0], draws_seen[1], "{draws_seen:?}");
    assert_ne!(draws_seen[1], draws_seen[2], "{draws_seen:?}");
    assert_ne!(draws_seen[2], draws_seen[3], "{draws_seen:?}");
    gpu.finish();
}

#[test]
fn id_views_refuse_an_srgb_target_and_leave_the_renderer_usable() {
    let (gpu, mut renderer, _) = gpu_with_four_quads();
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::ObjectIndex,
            ..Default::default()
        })
        .unwrap();
    let srgb = Target::new(&gpu, SIZE, SIZE);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let error = renderer.render(&mut encoder, &srgb.frame()).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Render(RenderError::IdViewTarget {
                view: DebugView::ObjectIndex,
                ..
            })
        ),
        "{error}"
    );
    // A frozen cull camera must be valid.
    let mut bad = *renderer.camera();
    bad.fov_y_radians = f32::NAN;
    assert!(
        renderer
            .set_debug(&DebugOptions {
                cull_camera: Some(bad),
                ..Default::default()
            })
            .is_err()
    );
    renderer.set_debug(&DebugOptions::default()).unwrap();
    let (image, _) = srgb.render(&gpu, &mut renderer);
    let (px, py) = pixel_of(-1.0, 1.0);
    let pixel = *image.get_pixel(px, py);
    assert!(
        color_distance(pixel, flat_shown_srgb([200, 30, 30, 255])) <= 2,
        "{pixel:?}"
    );
    gpu.finish();
}

#[test]
fn shading_views_show_base_colour_normals_and_uvs() {
    let (gpu, mut renderer, scene) = gpu_with_four_quads();
    // A light that changes the lit image: the unlit view must ignore it.
    renderer
        .set_lighting(&unbound::Lighting {
            direction_to_light: Vec3::new(0.3, 0.2, 1.0),
            light_color: Vec3::splat(0.6),
            ambient_color: Vec3::splat(0.1),
        })
        .unwrap();
    let srgb = Target::new(&gpu, SIZE, SIZE);
    let unlit = render_view(&gpu, &mut renderer, &srgb, DebugView::Unlit);
    let lit = render_view(&gpu, &mut renderer, &srgb, DebugView::Lit);
    let (px, py) = pixel_of(-1.0, 1.0);
    assert!(color_distance(*unlit.get_pixel(px, py), [200, 30, 30, 255]) <= 2);
    assert!(color_distance(*lit.get_pixel(px, py), [200, 30, 30, 255]) > 10);
    // Linear target: normals and UVs exact to a byte or two.
    let [normals, uvs] = render_linear(&gpu, &mut renderer, [DebugView::Normals, DebugView::Uvs]);
    for &(_, _, _, _, (x, y)) in &scene.quads {
        let (px, py) = pixel_of(x, y);
        // Facing +Z: (0, 0, 1) * 0.5 + 0.5.
        assert!(
            color_distance(*normals.get_pixel(px, py), [128, 128, 255, 255]) <= 2,
            "{:?}",
            normals.get_pixel(px, py)
        );
        // Centre of the quad: uv (0.5, 0.5); u grows to the right, v down.
        let centre = uvs.get_pixel(px, py).0;
        assert!(
            centre[0].abs_diff(128) <= 10 && centre[1].abs_diff(128) <= 10,
            "{centre:?}"
        );
        let right = uvs.get_pixel(px + 8, py).0;
        let below = uvs.get_pixel(px, py + 8).0;
        assert!(right[0] > centre[0] + 40, "{right:?} vs {centre:?}");
        assert!(below[1] > centre[1] + 40, "{below:?} vs {centre:?}");
    }
    gpu.finish();
}

#[test]
fn highlight_marks_every_pixel_that_sampled_the_missing_texture() {
    let (gpu, mut renderer, scene) = gpu_with_four_quads();
    // The top-right quad samples the missing texture (slot 0).
    let missing = renderer.heap().missing_texture();
    let broken = textured_material(&mut renderer, missing);
    let (object, _, _, _, (x, y)) = scene.quads[1];
    let mesh = scene.meshes[1];
    renderer
        .update_object(
            object,
            &ObjectDesc {
                mesh,
                material: broken,
                world_from_object: quad_at(Vec3::new(x, y, 0.0), 1.6, 1.6),
            },
        )
        .unwrap();
    let target = Target::new(&gpu, SIZE, SIZE);
    let (plain, _) = target.render(&gpu, &mut renderer);
    let highlight = DebugOptions {
        highlight_missing: true,
        ..Default::default()
    };
    let highlighted = render_debug(
        &gpu,
        &mut renderer,
        &target,
        &highlight,
        "highlight_missing",
    );
    let (px, py) = pixel_of(x, y);
    let half = (1.6 * SIZE as f32 / 8.0) as u32 - 2;
    // A radiance of magenta, tone mapped like the rest of the lit view.
    let [r, g, b] = shown_srgb(Vec3::new(1.0, 0.0, 1.0));
    let magenta = [r, g, b, 255];
    let mut plain_not_magenta = 0;
    for yy in py - half..py + half {
        for xx in px - half..px + half {
            let pixel = *highlighted.get_pixel(xx, yy);
            assert!(
                color_distance(pixel, magenta) <= 1,
                "({xx}, {yy}): {pixel:?}, expected {magenta:?}"
            );
            plain_not_magenta += u32::from(color_distance(*plain.get_pixel(xx, yy), magenta) > 1);
        }
    }
    assert!(
        plain_not_magenta > 0,
        "without the highlight the missing texture is a checker"
    );
    // Quads with real textures are unchanged.
    let (ox, oy) = pixel_of(-1.0, 1.0);
    assert_eq!(highlighted.get_pixel(ox, oy), plain.get_pixel(ox, oy));
    gpu.finish();
}

/// Freeze the cull camera on the left quads and look at all four: the right
/// ones are not drawn, and the bounds view outlines them in red and the
/// drawn ones in green.
#[test]
fn frozen_cull_camera_and_culled_bounds() {
    let (gpu, mut renderer, scene) = gpu_with_four_quads();
    let view_camera = *renderer.camera();
    let mut cull_camera = view_camera;
    cull_camera.position = Vec3::new(-1.0, 0.0, view_camera.position.z);
    cull_camera.target = Vec3::new(-1.0, 0.0, 0.0);
    cull_camera.aspect = 0.25;
    let frozen = DebugOptions {
        cull_camera: Some(cull_camera),
        culled_bounds: true,
        ..Default::default()
    };
    let target = Target::new(&gpu, SIZE, SIZE);
    let image = render_debug(&gpu, &mut renderer, &target, &frozen, "frozen_cull_bounds");
    let stats = renderer.latest_gpu_stats().unwrap();
    // CPU reference with the frozen camera's planes.
    let planes = unbound::camera::frustum_planes(&cull_camera.clip_from_world());
    let expected = scene
        .quads
        .iter()
        .filter(|q| {
            let sphere = unbound_scenes::demo::sphere_of(&renderer, q.0).unwrap();
            unbound::camera::sphere_in_frustum(&planes, sphere)
        })
        .count();
    assert_eq!(expected, 2, "the cull camera sees the left column");
    assert_eq!(stats.visible_instances as usize, expected);
    // Right quads not drawn; left ones drawn. (1, 32) is between quads and
    // boxes.
    let background = image.get_pixel(1, SIZE / 2).0;
    assert!(background[..3].iter().map(|&c| u32::from(c)).sum::<u32>() < 200);
    for &(_, _, _, _, (x, y)) in &scene.quads {
        let (px, py) = pixel_of(x, y);
        let empty = color_distance(*image.get_pixel(px, py), background) <= 2;
        assert_eq!(empty, x > 0.0, "quad at ({x}, {y})");
    }
    let is_red = |p: &image::Rgba<u8>| p[0] > 200 && p[1] < 140 && p[2] < 140;
    let is_green = |p: &image::Rgba<u8>| p[1] > 200 && p[0] < 140 && p[2] < 140;
    // The boxes are cubes around the bounding spheres (radius 1.13 around
    // x = +-1): red ones reach x = -0.13 (pixel 30), green ones x = 0.13
    // (pixel 34).
    let count = |test: &dyn Fn(&image::Rgba<u8>) -> bool, columns: std::ops::Range<u32>| {
        image
            .enumerate_pixels()
            .filter(|(x, _, p)| columns.contains(x) && test(p))
            .count()
    };
    let (red_left, red_right) = (count(&is_red, 0..26), count(&is_red, 36..SIZE));
    let (green_left, green_right) = (count(&is_green, 0..28), count(&is_green, 38..SIZE));
    assert!(
        red_right > 20 && red_left == 0,
        "red {red_left} left, {red_right} right"
    );
    assert!(
        green_left > 20 && green_right == 0,
        "green {green_left} left, {green_right} right"
    );
    // Unfrozen, everything is visible again and no red box remains.
    renderer
        .set_debug(&DebugOptions {
            culled_bounds: true,
            ..Default::default()
        })
        .unwrap();
    let (image, _) = target.render(&gpu, &mut renderer);
    target.render(&gpu, &mut renderer);
    assert_eq!(renderer.latest_gpu_stats().unwrap().visible_instances, 4);
    assert_eq!(image.pixels().filter(|p| is_red(p)).count(), 0);
    gpu.finish();
}

/// How the bounds view should colour an object's box.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoxColor {
    Culled,
    Occluded,
    Kept,
}

/// The pixel rectangle (min and max, inclusive, 1 pixel of slack) that the
/// box around `sphere` covers through `clip_from_world` in a
/// `width` x `height` target.
fn box_rect(clip_from_world: &glam::Mat4, sphere: glam::Vec4, width: u32, height: u32) -> [i64; 4] {
    let mut rect = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
    for corner in 0..8 {
        let sign = |bit: u32| if corner & bit != 0 { 1.0 } else { -1.0 };
        let offset = Vec3::new(sign(1), sign(2), sign(4)) * sphere.w;
        let clip = *clip_from_world * (sphere.truncate() + offset).extend(1.0);
        assert!(clip.w > 0.0, "every box in front of the view camera");
        let x = ((clip.x / clip.w) * 0.5 + 0.5) * width as f32;
        let y = (0.5 - (clip.y / clip.w) * 0.5) * height as f32;
        rect = [
            rect[0].min(x.floor() as i64 - 1),
            rect[1].min(y.floor() as i64 - 1),
            rect[2].max(x.ceil() as i64 + 1),
            rect[3].max(y.ceil() as i64 + 1),
        ];
    }
    rect
}

/// A wall hides objects behind it from the view camera while the cull
/// camera is frozen on the scene's left part: the bounds view draws the
/// boxes outside the frozen frustum red, those inside it that occlusion
/// culling hid (their visibility bit clear, read back) orange, the others
/// green. Each coloured line pixel lies in the box of an object of its
/// colour (a box's pixel rectangle); with occlusion culling off, no box is
/// orange.
#[test]
fn bounds_view_shows_occluded_objects_in_their_own_colour() {
    use common::occlusion_scene::{HEIGHT, WIDTH, renderer_for, wall_scene};
    use unbound::camera::{frustum_planes, sphere_in_frustum, sphere_plane_margin};
    let gpu = Gpu::new(&Gpu::default_capacities());
    let mut renderer = renderer_for(&gpu, true, None, false, unbound::output::Msaa::X1);
    let objects = wall_scene(&mut renderer);
    let view_camera = unbound::Camera {
        position: Vec3::new(0.3, 0.2, 8.0),
        target: Vec3::ZERO,
        aspect: WIDTH as f32 / HEIGHT as f32,
        ..Default::default()
    };
    renderer.set_camera(&view_camera).unwrap();
    // Frozen on the left: the right columns behind the wall are culled.
    let cull_camera = unbound::Camera {
        position: Vec3::new(-2.0, 0.2, 8.0),
        target: Vec3::new(-2.0, 0.0, 0.0),
        aspect: 0.5,
        ..view_camera
    };
    let bounds = DebugOptions {
        cull_camera: Some(cull_camera),
        culled_bounds: true,
        ..Default::default()
    };
    renderer.set_debug(&bounds).unwrap();
    let target = Target::new(&gpu, WIDTH, HEIGHT);
    // Frame 0 draws everything late (no bits yet); from frame 2 on the bits
    // and the early depth are the same every frame.
    let mut image = None;
    for _ in 0..4 {
        image = Some(target.render(&gpu, &mut renderer).0);
    }
    let image = image.unwrap();
    save_output("debug_occluded_bounds", &image);
    let stats = renderer.latest_gpu_stats().expect("stats arrive");
    assert_eq!(stats.frame_index, 3, "the last frame's statistics");
    // The bits the last frame's bounds view read.
    let bits = gpu.read_u32s(
        renderer.visibility_buffer(),
        0,
        objects.len().div_ceil(32) as u64,
    );
    let planes = frustum_planes(&cull_camera.clip_from_world());
    let view_from_world = view_camera.clip_from_world();
    let mut boxes = Vec::new();
    for (object, sphere) in &objects {
        let slot = object.slot();
        let bit = (bits[slot as usize / 32] >> (slot % 32)) & 1 == 1;
        let color = if !sphere_in_frustum(&planes, *sphere) {
            BoxColor::Culled
        } else if bit {
            BoxColor::Kept
        } else {
            BoxColor::Occluded
        };
        // Within f32 rounding of a plane: either colour may be right.
        let borderline = sphere_plane_margin(&planes, *sphere).abs() < 1e-3;
        boxes.push((
            color,
            borderline,
            box_rect(&view_from_world, *sphere, WIDTH, HEIGHT),
        ));
    }
    let count = |c: BoxColor| boxes.iter().filter(|b| b.0 == c && !b.1).count();
    let occluded = count(BoxColor::Occluded);
    assert!(
        count(BoxColor::Culled) >= 5 && occluded >= 5 && count(BoxColor::Kept) >= 2,
        "culled {}, occluded {occluded}, kept {}",
        count(BoxColor::Culled),
        count(BoxColor::Kept)
    );
    // Nothing moves: every hidden object was hidden last frame too, so not
    // drawn early, and the late phase counted it.
    assert_eq!(stats.occluded_instances as usize, occluded);

    // The same frame without the boxes: the pixels that differ are lines.
    renderer
        .set_debug(&DebugOptions {
            culled_bounds: false,
            ..bounds
        })
        .unwrap();
    let (plain, _) = target.render(&gpu, &mut renderer);
    let classify = |p: &image::Rgba<u8>| {
        if p[0] > 200 && p[1] < 140 && p[2] < 140 {
            Some(BoxColor::Culled)
        } else if p[0] > 200 && (140..=230).contains(&p[1]) && p[2] < 60 {
            Some(BoxColor::Occluded)
        } else if p[1] > 200 && p[0] < 140 && p[2] < 140 {
            Some(BoxColor::Kept)
        } else {
            None
        }
    };
    let mut seen = [0usize; 3];
    let mut other = 0;
    for (x, y, pixel) in image.enumerate_pixels() {
        if pixel == plain.get_pixel(x, y) {
            continue;
        }
        let Some(color) = classify(pixel) else {
            other += 1;
            continue;
        };
        seen[color as usize] += 1;
        let (x, y) = (i64::from(x), i64::from(y));
        let explained = boxes.iter().any(|&(c, borderline, [x0, y0, x1, y1])| {
            (c == color || borderline) && (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
        });
        assert!(explained, "{color:?} line at ({x}, {y}) in no such box");
    }
    assert_eq!(other, 0, "line pixels of no box colour");
    assert!(
        seen.iter().all(|&n| n > 20),
        "line pixels culled, occluded, kept: {seen:?}"
    );

    // Occlusion culling off: the stale bits are not read, nothing orange.
    renderer.set_occlusion(false);
    renderer.set_debug(&bounds).unwrap();
    let (image, _) = target.render(&gpu, &mut renderer);
    let orange = image
        .pixels()
        .filter(|p| classify(p) == Some(BoxColor::Occluded))
        .count();
    let green = image
        .pixels()
        .filter(|p| classify(p) == Some(BoxColor::Kept))
        .count();
    assert_eq!(orange, 0);
    assert!(
        green > seen[BoxColor::Kept as usize],
        "the hidden boxes turn green"
    );
    gpu.finish();
}

#[test]
fn material_views_show_the_texels_metallic_roughness_occlusion_and_emissive_hold() {
    const TEXELS: u32 = 8;
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mesh = flat_quad_scene(&mut renderer, 2.0);
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    // Per quadrant: metallic in blue, roughness in green (glTF's channels;
    // red is another map's), occlusion in red, an sRGB emissive colour.
    let metallic = [204u8, 25, 128, 240];
    let roughness = [51u8, 153, 230, 10];
    let occlusion = [40u8, 100, 170, 250];
    let emissive = [
        [255u8, 0, 0, 255],
        [0, 200, 0, 255],
        [30, 60, 90, 255],
        [128, 128, 128, 255],
    ];
    let mr: [[u8; 4]; 4] = std::array::from_fn(|i| [99, roughness[i], metallic[i], 255]);
    let ao: [[u8; 4]; 4] = std::array::from_fn(|i| [occlusion[i], 7, 7, 255]);
    let mr = data_texture(&mut renderer, TEXELS, linear, &quadrant_texels(TEXELS, mr));
    let ao = data_texture(&mut renderer, TEXELS, linear, &quadrant_texels(TEXELS, ao));
    let srgb = wgpu::TextureFormat::Rgba8UnormSrgb;
    let glow = data_texture(
        &mut renderer,
        TEXELS,
        srgb,
        &quadrant_texels(TEXELS, emissive),
    );
    let sampler = renderer.heap().default_sampler();
    let emissive_factor = Vec3::new(1.0, 0.5, 0.25);
    let material = renderer
        .add_material(&Material {
            metallic_factor: 1.0,
            roughness_factor: 0.5,
            metallic_roughness: Some(TextureRef::new(mr, sampler)),
            occlusion: Some(TextureRef::new(ao, sampler)),
            emissive: Some(TextureRef::new(glow, sampler)),
            emissive_factor,
            ..Default::default()
        })
        .unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: quad_at(Vec3::ZERO, 4.0, 4.0),
        })
        .unwrap();
    let views = [
        DebugView::Metallic,
        DebugView::Roughness,
        DebugView::Occlusion,
        DebugView::Emissive,
        DebugView::Tangents,
    ];
    let [m, r, o, e, t] = render_linear(&gpu, &mut renderer, views);
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let grey = |v: u8| [v, v, v, 255];
    for (i, (px, py)) in quadrant_centres(SIZE).into_iter().enumerate() {
        let [er, eg, eb, _] = emissive[i].map(|c| srgb_to_linear(f32::from(c) / 255.0));
        let emitted = Vec3::new(er, eg, eb) * emissive_factor;
        let expected = [
            ("metallic", &m, grey(metallic[i])),
            (
                "roughness",
                &r,
                grey(byte(0.5 * f32::from(roughness[i]) / 255.0)),
            ),
            ("occlusion", &o, grey(occlusion[i])),
            (
                "emissive",
                &e,
                [byte(emitted.x), byte(emitted.y), byte(emitted.z), 255],
            ),
            // The quad's tangent is +X: (1, 0, 0) * 0.5 + 0.5.
            ("tangents", &t, [255, 128, 128, 255]),
        ];
        for (view, image, want) in expected {
            let got = *image.get_pixel(px, py);
            assert!(
                color_distance(got, want) <= 1,
                "{view} view, quadrant {i}: {got:?}, texels say {want:?}"
            );
        }
    }
    gpu.finish();
}

/// The glTF loader's path to the same views: a generated file whose quad
/// fills the target, 4x4-texel metallic-roughness, occlusion and emissive
/// PNGs of 16 distinct texels each (every texel 16x16 pixels on screen,
/// sampled nearest; read at the pixel at each texel's centre), glTF's
/// factors, occlusion `strength` and `KHR_materials_emissive_strength`, and
/// the occlusion texture on TEXCOORD_1, which mirrors TEXCOORD_0 left to
/// right. Each view shows, within one step of the 8-bit linear target, the
/// value the sampled texel holds under the glTF formulas: metallic = factor
/// x B, roughness = factor x G, occlusion = 1 + strength (R - 1), emissive
/// = factor x strength x the sRGB-decoded texel. Without a normal texture
/// the tangent view shows the fallback tangent.
#[test]
fn material_views_of_a_gltf_show_its_texels_through_its_factors() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    check_gltf_material_views(&gpu, &mut renderer);
    gpu.finish();
}
