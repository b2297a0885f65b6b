//! The scene both modes show: the built-in procedural one or a glTF file
//! (optionally instanced on a grid), with its bounds and start pose, and
//! `--lights` random point lights.

use std::path::Path;
use std::time::Instant;

use glam::{Mat4, Vec3};
use unbound::loaders::gltf::{GltfScene, LoadOptions, LoadProgress, load_gltf_with};
use unbound::{ObjectHandle, Renderer};
use unbound_scenes::demo::{DemoSceneConfig, build_demo_scene};

use crate::animation::Player;
use crate::args::Args;
use crate::controls::CameraPose;

#[derive(Debug)]
pub struct LoadedScene {
    pub objects: Vec<ObjectHandle>,
    /// World-space bounds (min, max).
    pub bounds: (Vec3, Vec3),
    /// Where the camera starts (and returns to with F).
    pub home: CameraPose,
    /// Fixed near and far planes for every pose.
    pub near: f32,
    pub far: f32,
    /// One line for the log and the overlay.
    pub description: String,
    /// The file's animation, played on the GPU (`crate::animation`).
    pub player: Option<Player>,
}

impl LoadedScene {
    pub fn camera(&self, pose: &CameraPose, aspect: f32) -> unbound::Camera {
        pose.camera(aspect, self.near, self.far)
    }

    pub fn radius(&self) -> f32 {
        ((self.bounds.1 - self.bounds.0).length() * 0.5).max(1e-3)
    }
}

/// Seed of the `--lights` scatter: the same lights, the same image, every
/// run.
const LIGHTS_SEED: u64 = 1;
/// How many `--lights` a point of the scene is within the range of, about.
const LIGHTS_OVERLAP: f32 = 4.0;

/// The scene of `args`, and its `--lights` point lights.
pub fn load(renderer: &mut Renderer, args: &Args, aspect: f32) -> Result<LoadedScene, String> {
    let mut scene = load_objects(renderer, args, aspect)?;
    if args.lights > 0 {
        let lights = unbound_scenes::scatter_point_lights(
            args.lights,
            scene.bounds,
            LIGHTS_OVERLAP,
            LIGHTS_SEED,
        );
        for light in &lights {
            renderer.add_light(light).map_err(|e| e.to_string())?;
        }
        let range = lights[0].range.unwrap_or(0.0);
        scene.description += &format!(", {} point lights of range {range:.2}", args.lights);
    }
    Ok(scene)
}

fn load_objects(renderer: &mut Renderer, args: &Args, aspect: f32) -> Result<LoadedScene, String> {
    let started = Instant::now();
    match &args.scene {
        Some(path) => load_file(renderer, args, path, aspect, started),
        None => build_procedural(renderer, args, aspect, started),
    }
}

/// How meshes are added: with `--lod`, every level of detail.
fn mesh_options(args: &Args) -> unbound::MeshOptions {
    unbound::MeshOptions {
        lod_levels: if args.lod {
            unbound::lod::MAX_LOD_LEVELS
        } else {
            0
        },
        ..Default::default()
    }
}

/// The glTF file at `path`, with `--instances-grid` copies, the camera
/// framing it.
fn load_file(
    renderer: &mut Renderer,
    args: &Args,
    path: &Path,
    aspect: f32,
    started: Instant,
) -> Result<LoadedScene, String> {
    // Progress for loads that take a while: at most four lines a
    // second, and each stage's end, once a load has run 250 ms.
    let mut last_line = started;
    let mut report = |p: LoadProgress| {
        let now = Instant::now();
        let long = now.duration_since(started).as_millis() >= 250;
        let due = now.duration_since(last_line).as_millis() >= 250 || p.done == p.total;
        if long && due {
            println!("loading: {:?} {}/{}", p.stage, p.done, p.total);
            last_line = now;
        }
    };
    let mut scene = load_gltf_with(
        renderer,
        path,
        LoadOptions {
            world_from_scene: Mat4::IDENTITY,
            progress: Some(&mut report),
            meshes: mesh_options(args),
            ..LoadOptions::default()
        },
    )
    .map_err(|e| e.to_string())?;
    for warning in &scene.warnings {
        eprintln!("warning: {warning}");
    }
    // A file that places nothing (no scene, only points and lines)
    // has empty bounds (min > max): frame the unit box at the origin
    // instead, so the camera and its near and far planes stay finite.
    if scene.bounds.0.cmpgt(scene.bounds.1).any() {
        scene.bounds = (Vec3::splat(-1.0), Vec3::ONE);
    }
    let choice = (args.animation.as_deref(), args.time);
    let mut posed = String::new();
    if args.animation_on_cpu {
        // Posed before the copies are made: they show the pose too.
        let line =
            crate::animation::pose_on_cpu(renderer, &mut scene, choice, &mesh_options(args))?;
        posed = format!(", {line}");
    }
    let copies = add_grid_copies(renderer, &mut scene, args.grid)?;
    let mut player = None;
    if !args.animation_on_cpu {
        match Player::start(renderer, &mut scene, copies, choice) {
            Ok(Some((started, line))) => {
                posed = format!(", {line}");
                player = Some(started);
            }
            Ok(None) => {}
            // Asked for: an error. Played by default: the file is shown
            // still.
            Err(e) if args.animation.is_some() || args.time.is_some() => return Err(e),
            Err(e) => eprintln!("warning: the file's animation does not play: {e}"),
        }
    }
    let description = format!(
        "scene: {} ({} objects, {} meshes, {} materials, {} textures), loaded in {:.0} ms{posed}",
        path.display(),
        scene.objects.len(),
        scene.meshes.len(),
        scene.materials.len(),
        scene.textures.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let radius = ((scene.bounds.1 - scene.bounds.0).length() * 0.5).max(1e-3);
    let scene_camera = LoadedScene {
        objects: scene.objects,
        bounds: scene.bounds,
        home: CameraPose::framing(scene.bounds.0, scene.bounds.1),
        near: radius * 0.01,
        far: radius * 20.0,
        description,
        player,
    };
    if !scene_camera.objects.is_empty() {
        renderer
            .set_camera(&scene_camera.camera(&scene_camera.home, aspect))
            .map_err(|e| e.to_string())?;
    }
    Ok(scene_camera)
}

/// --instances-grid N: N x N x N copies of the scene, one scene width
/// apart; the bounds grow to hold them. Returns every copy's placement,
/// the scene itself first (its objects come first in `scene.objects`, each
/// copy's after, in the same order).
fn add_grid_copies(
    renderer: &mut Renderer,
    scene: &mut GltfScene,
    n: u32,
) -> Result<Vec<Mat4>, String> {
    let size = (scene.bounds.1 - scene.bounds.0).max_element() * 1.2;
    let mut copies = vec![Mat4::IDENTITY];
    let n = n.max(1) as i32;
    for x in 0..n {
        for y in 0..n {
            for z in 0..n {
                if (x, y, z) == (0, 0, 0) {
                    continue;
                }
                let offset =
                    Mat4::from_translation(Vec3::new(x as f32, y as f32, -z as f32) * size);
                copies.push(offset);
                for placement in &scene.placements {
                    let desc = unbound::ObjectDesc {
                        world_from_object: offset * placement.world_from_object,
                        ..*placement
                    };
                    scene
                        .objects
                        .push(renderer.add_object(&desc).map_err(|e| e.to_string())?);
                }
            }
        }
    }
    scene.bounds.1 += Vec3::new(1.0, 1.0, 0.0) * size * (n - 1) as f32;
    scene.bounds.0 -= Vec3::Z * size * (n - 1) as f32;
    Ok(copies)
}

/// The built-in procedural scene of `--instances` objects.
fn build_procedural(
    renderer: &mut Renderer,
    args: &Args,
    aspect: f32,
    started: Instant,
) -> Result<LoadedScene, String> {
    let config = DemoSceneConfig {
        instances: args.instances,
        mesh_options: mesh_options(args),
        ..DemoSceneConfig::default()
    };
    let scene = build_demo_scene(renderer, &config, aspect).map_err(|e| e.to_string())?;
    let description = format!(
        "scene: {} instances, {} meshes, {} textures/materials, built in {:.0} ms",
        scene.objects.len(),
        scene.meshes.len(),
        scene.materials.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let h = scene.half_extent;
    let camera = scene.camera;
    Ok(LoadedScene {
        objects: scene.objects,
        // Objects (up to 1.4 units across) around the cube's points.
        bounds: (Vec3::splat(-h - 1.5), Vec3::splat(h + 1.5)),
        home: CameraPose {
            eye: camera.position,
            target: camera.target,
            fovy_degrees: camera.fov_y_radians.to_degrees(),
        },
        near: camera.z_near,
        far: camera.z_far,
        description,
        player: None,
    })
}
