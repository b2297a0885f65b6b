//! Morph targets on the GPU (`wgsl/morph.wgsl`'s `morph_vertex`, weights
//! played by the animation pass): a generated sphere with two targets
//! (positions, normals and tangents), its weights animated by a LINEAR
//! clip (up to 1.3), drawn on a ground in the sun with shadows on.
//!
//! - At two times it draws as its CPU-morphed twin
//!   (`animation::deform_vertex` with the CPU pose's weights, drawn as a
//!   static mesh): object ids equal at every pixel whose 3 × 3
//!   neighbourhood holds one id (away from every edge), colours there
//!   within `COLOUR_TOLERANCE`, the ground included: the shadow pass pulls
//!   the same morphed positions (the ground pixels whose shade moved with
//!   the morph, against the rest pose, are counted and must match too).
//! - Every morphed vertex lies inside the object's culling sphere (the
//!   bounds stream the cull reads, read back), grown by `morph_reach`.
//! - On lavapipe (tier A) and on Mesa's GL llvmpipe (tier C: the same
//!   pulling).
//!
//! - The ray paths trace it morphed (`wgsl/ray_deform.wgsl`, hit shading
//!   in `wgsl/ray_hit.wgsl`): ray-query shadows and the hit-material view
//!   agree with the raster frame.
//! - Replacing a playing animation leaves no stale deformation: the frame
//!   equals a fresh renderer's that only had the new animation.
//! - On a simplified level (LOD) it still morphs.
//!
//! Without the GPU's morph (`morph_vertex` of `wgsl/morph.wgsl` returning
//! the rest vertex) the ids differ at hundreds of interior pixels and the
//! first assertion fails.

mod common;

use common::morph_sphere::{Sphere, animation};
use common::{
    Gpu, ShadowAgreement, ShadowFrames, Target, color_distance, decoded_ids, id_view,
    material_agreement, ray_capacities, ray_config, save_output,
};
use glam::{Mat4, Vec3, Vec4};
use unbound::animation::{
    AnimationData, AnimationError, DeformedVertex, MorphTarget, MorphTargets, Playback, Playing,
    Pose, deform_vertex, morph_reach,
};
use unbound::geometry::MeshData;
use unbound::{
    Camera, DebugOptions, DebugView, Lighting, LodSettings, Material, MeshOptions, ObjectDesc,
    ObjectHandle, Renderer, ShadowSettings, shapes,
};

/// wgpu's GL backend and lavapipe take turns (see tests/tiers.rs).
static GL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn gl_turn() -> std::sync::MutexGuard<'static, ()> {
    GL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Largest colour difference (0 to 255 per channel) away from edges: the
/// GPU re-encodes the morphed normal (octahedral, 16 bits) from the
/// decoded rest normal, the twin encodes its CPU-morphed normal once.
const COLOUR_TOLERANCE: u8 = 3;

const SIZE: u32 = 160;

fn playing() -> Playing {
    Playing::One(Playback {
        looping: false,
        ..Playback::looping(0)
    })
}

fn sphere_placement() -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(1.5),
        glam::Quat::from_rotation_y(0.4),
        Vec3::new(0.0, 1.0, 0.0),
    )
}

fn camera() -> Camera {
    Camera {
        position: Vec3::new(0.5, 3.5, 5.0),
        target: Vec3::new(0.4, 0.6, 0.3),
        fov_y_radians: 50f32.to_radians(),
        aspect: 1.0,
        z_near: 0.5,
        z_far: 40.0,
        ..Camera::default()
    }
}

/// A renderer with the ground and one object of `mesh` (sphere's
/// material), the sun and its shadows on; returns the object.
fn scene(gpu: &Gpu, renderer: &mut Renderer, mesh: &MeshData<'_>) -> ObjectHandle {
    scene_with(gpu, renderer, mesh, &MeshOptions::default())
}

/// The scene's shadow maps.
fn shadow_maps() -> ShadowSettings {
    ShadowSettings {
        enabled: true,
        resolution: 512,
        max_distance: 16.0,
        ..ShadowSettings::default()
    }
}

/// [`scene`], `mesh` added with `options`.
fn scene_with(
    gpu: &Gpu,
    renderer: &mut Renderer,
    mesh: &MeshData<'_>,
    options: &MeshOptions,
) -> ObjectHandle {
    renderer.set_camera(&camera()).unwrap();
    renderer
        .set_lighting(&Lighting {
            direction_to_light: Vec3::new(-0.3, 0.8, -0.5).normalize(),
            ..Lighting::default()
        })
        .unwrap();
    renderer.set_shadows(&shadow_maps()).unwrap();
    let dielectric = |color: [f32; 4]| Material {
        base_color_factor: Vec4::from(color),
        metallic_factor: 0.0,
        roughness_factor: 0.6,
        ..Material::default()
    };
    let ground_material = renderer
        .add_material(&dielectric([0.8, 0.8, 0.75, 1.0]))
        .unwrap();
    let material = renderer
        .add_material(&dielectric([0.2, 0.5, 0.8, 1.0]))
        .unwrap();
    let quad = renderer.add_mesh(&shapes::quad().as_mesh_data()).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh: quad,
            material: ground_material,
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::new(10.0, 10.0, 1.0),
                glam::Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::ZERO,
            ),
        })
        .unwrap();
    let mesh = renderer.add_mesh_with(mesh, options).unwrap();
    let _ = gpu;
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: sphere_placement(),
        })
        .unwrap()
}

/// Pixels whose 3 × 3 neighbourhood in `ids` holds one id.
fn interior(ids: &image::RgbaImage) -> Vec<(u32, u32)> {
    let (w, h) = ids.dimensions();
    let mut inside = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let centre = ids.get_pixel(x, y);
            if (y - 1..=y + 1).all(|ny| (x - 1..=x + 1).all(|nx| ids.get_pixel(nx, ny) == centre)) {
                inside.push((x, y));
            }
        }
    }
    inside
}

fn ids_and_colours(gpu: &Gpu, renderer: &mut Renderer) -> (image::RgbaImage, image::RgbaImage) {
    let ids = Target::with_format(gpu, SIZE, SIZE, wgpu::TextureFormat::Rgba8Unorm);
    let colours = Target::new(gpu, SIZE, SIZE);
    renderer
        .set_debug(&DebugOptions {
            view: DebugView::ObjectIndex,
            ..Default::default()
        })
        .unwrap();
    let (id_image, _) = ids.render(gpu, renderer);
    renderer.set_debug(&DebugOptions::default()).unwrap();
    let (colour_image, _) = colours.render(gpu, renderer);
    (id_image, colour_image)
}

/// The sphere morphed on the CPU with `weights`.
fn cpu_morphed(sphere: &Sphere, targets: &MorphTargets, weights: &[f32]) -> Vec<DeformedVertex> {
    (0..sphere.positions.len())
        .map(|v| {
            let rest = DeformedVertex {
                position: Vec3::from(sphere.positions[v]),
                normal: Vec3::from(sphere.normals[v]),
                tangent: Vec4::from(sphere.tangents[v]),
            };
            deform_vertex(rest, v, Some((targets, weights)), None)
        })
        .collect()
}

fn morph_draws_as_its_cpu_twin(gpu: &Gpu, tier: &str) {
    let capacities = Gpu::default_capacities();
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let data = animation(&targets);
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);

    let mut animated = gpu.renderer(&capacities);
    let object = scene(gpu, &mut animated, &rest);
    animated.set_animation(&data, 1).unwrap();
    let reach = morph_reach(&targets, &data.weight_bounds(0));
    // Target 0's longest delta is 0.3 (weight bound 1.3), target 1's
    // sqrt(0.5² + 0.4²) (bound 1).
    assert!(
        (reach - (0.3 * 1.3 + 0.41f32.sqrt())).abs() < 1e-5,
        "{reach}"
    );
    animated
        .set_object_morph(object, Some(&targets), 0, 0, reach)
        .unwrap();
    animated.play_animation(&[playing()], 0.0).unwrap();
    let (_, rest_colours) = ids_and_colours(gpu, &mut animated);

    for time in [0.5f32, 1.0] {
        animated.play_animation(&[playing()], time).unwrap();
        let (gpu_ids, gpu_colours) = ids_and_colours(gpu, &mut animated);
        let weights = Pose::playing(&data, &playing(), time).weights[0].clone();
        let morphed = cpu_morphed(&sphere, &targets, &weights);
        let positions: Vec<[f32; 3]> = morphed.iter().map(|v| v.position.to_array()).collect();
        let normals: Vec<[f32; 3]> = morphed.iter().map(|v| v.normal.to_array()).collect();
        let tangents: Vec<[f32; 4]> = morphed.iter().map(|v| v.tangent.to_array()).collect();
        let mut twin = gpu.renderer(&capacities);
        scene(
            gpu,
            &mut twin,
            &sphere.data(&positions, &normals, &tangents),
        );
        let (cpu_ids, cpu_colours) = ids_and_colours(gpu, &mut twin);
        save_output(&format!("animation_morph_gpu_{tier}_{time}"), &gpu_colours);
        save_output(&format!("animation_morph_cpu_{tier}_{time}"), &cpu_colours);

        let inside = interior(&cpu_ids);
        let sphere_id = *cpu_ids.get_pixel(SIZE / 2, SIZE / 3);
        let on_sphere = inside
            .iter()
            .filter(|&&(x, y)| *cpu_ids.get_pixel(x, y) == sphere_id)
            .count();
        let id_mismatches = inside
            .iter()
            .filter(|&&(x, y)| gpu_ids.get_pixel(x, y) != cpu_ids.get_pixel(x, y))
            .count();
        let worst_colour = inside
            .iter()
            .map(|&(x, y)| {
                color_distance(*gpu_colours.get_pixel(x, y), cpu_colours.get_pixel(x, y).0)
            })
            .max()
            .unwrap_or(0);
        // Ground pixels whose shade moved with the morph (its shadow).
        let shadow_moved: Vec<(u32, u32)> = inside
            .iter()
            .copied()
            .filter(|&(x, y)| *cpu_ids.get_pixel(x, y) != sphere_id)
            .filter(|&(x, y)| {
                color_distance(*rest_colours.get_pixel(x, y), cpu_colours.get_pixel(x, y).0) > 20
            })
            .collect();
        let shadow_worst = shadow_moved
            .iter()
            .map(|&(x, y)| {
                color_distance(*gpu_colours.get_pixel(x, y), cpu_colours.get_pixel(x, y).0)
            })
            .max()
            .unwrap_or(0);
        eprintln!(
            "{tier} t = {time} (weights {weights:?}): {} interior pixels ({on_sphere} on the \
             sphere), {id_mismatches} ids differ, largest colour difference {worst_colour}; \
             {} ground pixels' shadow moved, largest difference there {shadow_worst}",
            inside.len(),
            shadow_moved.len()
        );
        assert!(
            on_sphere > 1000,
            "t = {time}: the sphere covers {on_sphere}"
        );
        assert_eq!(id_mismatches, 0, "t = {time}: ids away from edges");
        assert!(
            shadow_moved.len() > 30,
            "t = {time}: the morph moves the shadow ({})",
            shadow_moved.len()
        );
        assert!(
            worst_colour <= COLOUR_TOLERANCE,
            "t = {time}: colour difference {worst_colour}"
        );

        // Every morphed vertex inside the culling sphere the cull reads.
        let table = animated.objects();
        let slot = table.resolve(object).unwrap();
        let bytes = gpu.read_buffer(table.bounds_buffer(), u64::from(slot) * 16, 16);
        let bound = Vec4::from_array(bytemuck::pod_read_unaligned::<[f32; 4]>(&bytes));
        let farthest = morphed
            .iter()
            .map(|v| sphere_placement().transform_point3(v.position))
            .map(|p| p.distance(bound.truncate()))
            .fold(0.0f32, f32::max);
        eprintln!("bound {bound}, farthest morphed vertex {farthest}");
        assert!(farthest <= bound.w, "t = {time}: {farthest} > {}", bound.w);
    }
    gpu.finish();
}

/// On lavapipe (tier A).
#[test]
fn morphed_sphere_draws_and_shadows_as_its_cpu_twin_inside_its_bounds() {
    let _turn = gl_turn();
    morph_draws_as_its_cpu_twin(&Gpu::new(&Gpu::default_capacities()), "vulkan");
}

/// On Mesa's GL llvmpipe (tier C).
#[test]
fn morphed_sphere_draws_and_shadows_as_its_cpu_twin_on_gl() {
    let _turn = gl_turn();
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    morph_draws_as_its_cpu_twin(&gpu, "gl");
}

/// Deltas that do not cover the mesh, or a node without enough weights,
/// are typed errors; `None` draws the object unmorphed again.
#[test]
fn mismatched_morphs_are_typed_errors() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);
    let object = scene(&gpu, &mut renderer, &rest);
    renderer.set_animation(&animation(&targets), 1).unwrap();
    let mut short = targets.clone();
    for target in &mut short.targets {
        if let Some(p) = target.positions.as_mut() {
            p.pop();
        }
        if let Some(n) = target.normals.as_mut() {
            n.pop();
        }
        if let Some(t) = target.tangents.as_mut() {
            t.pop();
        }
    }
    let mismatch = |r: Result<(), unbound::Error>| {
        matches!(
            r,
            Err(unbound::Error::Animation(
                AnimationError::MorphMismatch { .. }
            ))
        )
    };
    assert!(mismatch(renderer.set_object_morph(
        object,
        Some(&short),
        0,
        0,
        0.0
    )));
    let mut three = targets.clone();
    three.targets.push(MorphTarget::default());
    assert!(mismatch(renderer.set_object_morph(
        object,
        Some(&three),
        0,
        0,
        0.0
    )));
    assert!(mismatch(renderer.set_object_morph(
        object,
        Some(&targets),
        0,
        0,
        f32::NAN
    )));
    renderer
        .set_object_morph(object, Some(&targets), 0, 0, 1.0)
        .unwrap();
    renderer.set_object_morph(object, None, 0, 0, 0.0).unwrap();
}

/// The side of the ray tests' frames.
const RAY_SIZE: u32 = 160;

/// The ray paths see the morph (`src/rays/deform.rs`, `wgsl/morph.wgsl`):
/// the sphere, morphed but not skinned, at 1 s (weights 1.3 and 0.8:
/// stretched along x, its top lifted and pushed forward), on lavapipe with
/// ray queries. The rules of `tests/ray_animation.rs`: the hit-material
/// view equals the drawn material view on at least 99% of the interior
/// pixels, and ray-query shadows agree with the shadow maps (whose casters
/// the shadow pass morphs) on at least 98% of the ground pixels away from
/// shadow edges; the morph moves more pixels of each from the rest pose
/// than those tolerances allow, so tracing the rest pose fails them (as
/// it did before the morph reached the ray paths). The object gets a
/// deformed BLAS of its own.
#[test]
fn rays_trace_the_morphed_sphere() {
    let _turn = gl_turn();
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let data = animation(&targets);
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);
    let mut renderer = gpu.renderer_with(ray_config(ray_capacities()));
    let object = scene(&gpu, &mut renderer, &rest);
    renderer.set_animation(&data, 1).unwrap();
    let reach = morph_reach(&targets, &data.weight_bounds(0));
    renderer
        .set_object_morph(object, Some(&targets), 0, 0, reach)
        .unwrap();
    renderer.play_animation(&[playing()], 0.0).unwrap();
    let size = RAY_SIZE as usize;
    let bind_ids = decoded_ids(&id_view(
        &gpu,
        &mut renderer,
        DebugView::MaterialIndex,
        RAY_SIZE,
    ));
    let bind_shadows = ShadowFrames::render(&gpu, &mut renderer, RAY_SIZE, &shadow_maps());

    renderer.play_animation(&[playing()], 1.0).unwrap();
    let drawn_image = id_view(&gpu, &mut renderer, DebugView::MaterialIndex, RAY_SIZE);
    let traced_image = id_view(&gpu, &mut renderer, DebugView::HitMaterial, RAY_SIZE);
    save_output("animation_morph_rays_drawn", &drawn_image);
    save_output("animation_morph_rays_traced", &traced_image);
    let (drawn, traced) = (decoded_ids(&drawn_image), decoded_ids(&traced_image));
    let [inside, equal, moved] = material_agreement(&bind_ids, &drawn, &traced, size);
    let ratio = equal as f64 / inside as f64;
    eprintln!(
        "hit-material view: {equal} of {inside} interior pixels equal ({ratio:.4}); {moved} \
         moved from the rest pose"
    );
    assert!(
        moved as f64 > 0.02 * inside as f64,
        "the morph moves {moved} of {inside} interior pixels: too few to tell"
    );
    assert!(ratio >= 0.99, "{equal} of {inside} equal");

    let posed = ShadowFrames::render(&gpu, &mut renderer, RAY_SIZE, &shadow_maps());
    save_output("animation_morph_rays_shadows_rays", &posed.rays);
    save_output("animation_morph_rays_shadows_maps", &posed.maps);
    let agreement = ShadowAgreement::of(&bind_shadows, &posed);
    eprintln!("shadows: {agreement:?}");
    let ShadowAgreement {
        pixels,
        in_shadow,
        agreeing,
        moved,
    } = agreement;
    assert!(
        in_shadow >= 100 && pixels - in_shadow >= 1000,
        "{in_shadow} of {pixels} in shadow"
    );
    assert!(
        moved as f64 > 0.04 * pixels as f64,
        "the morph moves {moved} of {pixels} shadow pixels: too few to tell"
    );
    assert!(
        agreeing as f64 >= 0.98 * pixels as f64,
        "{agreeing} of {pixels} agree"
    );
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!((stats.deformed, stats.deformed_fallback), (1, 0));
    // Unmorphed: traced through its mesh's BLAS again.
    renderer.set_object_morph(object, None, 0, 0, 0.0).unwrap();
    let stats = renderer.acceleration_structures().unwrap();
    assert_eq!((stats.deformed, stats.deformed_fallback), (0, 0));
    gpu.finish();
}

/// A second sphere object (its own mesh of the same data) placed beside
/// the first, in every renderer of `replacing_the_animation_*`.
fn second_sphere(renderer: &mut Renderer, rest: &MeshData<'_>) -> ObjectHandle {
    let mesh = renderer.add_mesh(rest).unwrap();
    let material = renderer.add_material(&Material::default()).unwrap();
    renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: Mat4::from_translation(Vec3::new(-2.5, 1.0, -1.0)),
        })
        .unwrap()
}

/// [`animation`] for both spheres' meshes (a region of deltas each).
fn two_meshes(targets: &MorphTargets) -> AnimationData {
    let mut data = animation(targets);
    data.meshes.push(data.meshes[0].clone());
    data
}

/// [`two_meshes`] with other keys: the weights go to (0.2, 1.1) at 1 s.
fn other_animation(targets: &MorphTargets) -> AnimationData {
    let mut data = two_meshes(targets);
    data.clips[0].samplers[0].values = vec![0.0, 0.0, 0.2, 1.1];
    data
}

/// Replacing a playing animation leaves nothing of it behind
/// (`src/renderer/animation.rs`): sphere A, morphed by the first
/// animation, is not morphed by the second; sphere B is morphed by both.
/// After the replacement the frame (ids and colours at every pixel, and
/// the deformed BLASes) equals that of a renderer that only ever had the
/// second animation, B morphed by it, A never morphed. Without the reset,
/// A's record kept the first animation's delta and weight indices, which
/// the second animation's deform buffer fills with B's deltas and weights:
/// A was drawn morphed and traced through a stale BLAS.
#[test]
fn replacing_the_animation_leaves_no_stale_deformation() {
    let _turn = gl_turn();
    let gpu = Gpu::with_ray_queries(&ray_capacities());
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);
    let reach = 2.0;
    let frame = |renderer: &mut Renderer| {
        let ids = id_view(&gpu, renderer, DebugView::ObjectIndex, RAY_SIZE);
        let colours = Target::new(&gpu, RAY_SIZE, RAY_SIZE)
            .render(&gpu, renderer)
            .0;
        (ids, colours)
    };

    let mut replaced = gpu.renderer_with(ray_config(ray_capacities()));
    let a = scene(&gpu, &mut replaced, &rest);
    let b = second_sphere(&mut replaced, &rest);
    replaced.set_animation(&two_meshes(&targets), 1).unwrap();
    for object in [a, b] {
        replaced
            .set_object_morph(object, Some(&targets), 0, 0, reach)
            .unwrap();
    }
    replaced.play_animation(&[playing()], 1.0).unwrap();
    let first = frame(&mut replaced);
    replaced
        .set_animation(&other_animation(&targets), 1)
        .unwrap();
    replaced
        .set_object_morph(b, Some(&targets), 0, 0, reach)
        .unwrap();
    replaced.play_animation(&[playing()], 1.0).unwrap();
    let (ids, colours) = frame(&mut replaced);

    let mut fresh = gpu.renderer_with(ray_config(ray_capacities()));
    scene(&gpu, &mut fresh, &rest);
    let fresh_b = second_sphere(&mut fresh, &rest);
    fresh.set_animation(&other_animation(&targets), 1).unwrap();
    fresh
        .set_object_morph(fresh_b, Some(&targets), 0, 0, reach)
        .unwrap();
    fresh.play_animation(&[playing()], 1.0).unwrap();
    let (fresh_ids, fresh_colours) = frame(&mut fresh);
    save_output("animation_morph_replaced", &colours);
    save_output("animation_morph_fresh", &fresh_colours);

    let differing = |x: &image::RgbaImage, y: &image::RgbaImage| {
        x.pixels().zip(y.pixels()).filter(|(p, q)| p != q).count()
    };
    let worst = colours
        .pixels()
        .zip(fresh_colours.pixels())
        .map(|(p, q)| color_distance(*p, q.0))
        .max()
        .unwrap_or(0);
    eprintln!(
        "replaced against fresh: {} ids differ, largest colour difference {worst}; the first \
         animation's frame differs at {} ids",
        differing(&ids, &fresh_ids),
        differing(&first.0, &ids)
    );
    assert!(differing(&first.0, &ids) > 500, "the replacement shows");
    assert_eq!(differing(&ids, &fresh_ids), 0, "ids");
    assert!(worst <= 1, "colour difference {worst}");
    let stats = |r: &mut Renderer| {
        let s = r.acceleration_structures().unwrap();
        (s.deformed, s.deformed_fallback)
    };
    assert_eq!(stats(&mut replaced), (1, 0));
    assert_eq!(stats(&mut replaced), stats(&mut fresh));
    gpu.finish();
}

/// An animated object on a simplified level still animates: a level
/// indexes its mesh's own arena vertices, which the vertex pulling morphs
/// (and skins) vertex for vertex (`wgsl/morph.wgsl`). The sphere, added
/// with two levels, is drawn with LOD on and a threshold that lets every
/// level through (as distance would: the coarsest level is drawn, fewer
/// triangles than with LOD off); its ids at 0 s and 1 s differ at
/// hundreds of pixels, as the full mesh's do, and its shape at 1 s is the
/// full mesh's but for the simplification (ids equal on at least 90% of
/// the sphere's pixels; the rest pose covers far fewer of them).
#[test]
fn a_morphed_object_on_a_simplified_level_still_animates() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let data = animation(&targets);
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let options = MeshOptions {
        lod_levels: 2,
        ..MeshOptions::default()
    };
    let object = scene_with(&gpu, &mut renderer, &rest, &options);
    renderer.set_animation(&data, 1).unwrap();
    let reach = morph_reach(&targets, &data.weight_bounds(0));
    renderer
        .set_object_morph(object, Some(&targets), 0, 0, reach)
        .unwrap();
    let target = Target::new(&gpu, SIZE, SIZE);
    let triangles = |renderer: &mut Renderer| {
        target.render(&gpu, renderer);
        renderer.latest_gpu_stats().expect("stats arrive").triangles
    };
    let full_triangles = triangles(&mut renderer);
    renderer.play_animation(&[playing()], 1.0).unwrap();
    let full = decoded_ids(&id_view(&gpu, &mut renderer, DebugView::ObjectIndex, SIZE));
    let lod = LodSettings {
        enabled: true,
        threshold_px: 1e6,
    };
    renderer.set_lod(&lod).unwrap();
    let level_triangles = triangles(&mut renderer);
    let mut ids_at = |time: f32| {
        renderer.play_animation(&[playing()], time).unwrap();
        decoded_ids(&id_view(&gpu, &mut renderer, DebugView::ObjectIndex, SIZE))
    };
    let (at_rest, posed) = (ids_at(0.0), ids_at(1.0));
    let sphere_id = full[(SIZE / 3 * SIZE + SIZE / 2) as usize];
    let on_sphere = full.iter().filter(|&&id| id == sphere_id).count();
    let moved = at_rest.iter().zip(&posed).filter(|(a, b)| a != b).count();
    let like_full = full
        .iter()
        .zip(&posed)
        .filter(|&(&f, &p)| f == sphere_id && p == sphere_id)
        .count();
    eprintln!(
        "triangles {level_triangles} with LOD, {full_triangles} without; {moved} ids moved; \
         {like_full} of the full mesh's {on_sphere} sphere pixels"
    );
    assert!(level_triangles < full_triangles);
    assert!(moved > 500, "{moved} ids moved between 0 s and 1 s");
    assert!(
        like_full as f64 >= 0.9 * on_sphere as f64,
        "{like_full} of {on_sphere}"
    );
    gpu.finish();
}

/// One morph set on two arena meshes (the sphere added twice, as two
/// separate `add_mesh` calls): `set_animation` sizes the delta region for
/// the data's one morphed mesh, and both objects morph from that one
/// range (`src/renderer/animation.rs` finds a range by its deltas). Before,
/// each arena mesh took a range of its own and the second object's
/// `set_object_morph` failed with `DeltasOutOfRange`. Both spheres then
/// move between 0 s and 1 s (hundreds of ids each, as the single sphere
/// of `a_morphed_object_on_a_simplified_level_still_animates` does), and
/// deltas that are not the data's still do not fit: a typed error whose
/// message says what to do.
#[test]
fn meshes_sharing_one_morph_set_share_one_delta_range() {
    let _turn = gl_turn();
    let gpu = Gpu::new(&Gpu::default_capacities());
    let sphere = Sphere::new();
    let targets = sphere.targets();
    let rest = sphere.data(&sphere.positions, &sphere.normals, &sphere.tangents);
    let mut renderer = gpu.renderer(&Gpu::default_capacities());
    let a = scene(&gpu, &mut renderer, &rest);
    let b = second_sphere(&mut renderer, &rest);
    renderer.set_animation(&animation(&targets), 1).unwrap();
    for object in [a, b] {
        renderer
            .set_object_morph(object, Some(&targets), 0, 0, 2.0)
            .unwrap();
    }
    let mut ids_at = |time: f32| {
        renderer.play_animation(&[playing()], time).unwrap();
        decoded_ids(&id_view(&gpu, &mut renderer, DebugView::ObjectIndex, SIZE))
    };
    let (at_rest, posed) = (ids_at(0.0), ids_at(1.0));
    // Object ids (slots plus one, as decoded): the ground, A, then B.
    let id_a = at_rest[(SIZE / 3 * SIZE + SIZE / 2) as usize];
    let id_b = id_a + 1;
    let moved = |id: u32| {
        at_rest
            .iter()
            .zip(&posed)
            .filter(|&(&r, &p)| r != p && (r == id || p == id))
            .count()
    };
    eprintln!(
        "sphere A (id {id_a}) moved {} pixels, sphere B (id {id_b}) {}",
        moved(id_a),
        moved(id_b)
    );
    assert!(moved(id_a) > 200, "sphere A morphs");
    assert!(moved(id_b) > 200, "sphere B morphs");

    let mut other = targets.clone();
    for target in &mut other.targets {
        for p in target.positions.iter_mut().flatten() {
            p[0] *= 2.0;
        }
    }
    let refused = renderer.set_object_morph(b, Some(&other), 0, 0, 4.0);
    let Err(unbound::Error::Animation(error @ AnimationError::DeltasOutOfRange { .. })) = refused
    else {
        panic!("deltas beyond the data's: {refused:?}");
    };
    assert!(error.to_string().contains("set_animation"), "{error}");
    gpu.finish();
}
