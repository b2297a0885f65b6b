//! The crowd scenes' render path: N copies of the Khronos sample Fox
//! (`assets/gltfpack/Fox.glb`, built into the binary; model CC0 1.0 by
//! PixelMannen, rigging and animation CC-BY 4.0 by @tomkranis, see
//! `assets/README.md`) on the grid of `unbound_scenes::crowd`.
//!
//! `crowd`: one animation of N instances (`Renderer::set_animation`); copy
//! `i`'s skinned objects draw with instance `i`'s palette, and instance `i`
//! plays what `unbound_scenes::crowd::crowd_playback` gives it. Each frame
//! the CPU hands over the time (`Renderer::set_animation_time`, 1/60 s a
//! frame; what plays is handed over once, `Renderer::play_animation`):
//! nothing per instance or joint. `crowd-static`: the same copies,
//! no animation, every Fox its mesh as stored (the bind pose): the CPU
//! reference the animated crowd's CPU time is compared with.
//!
//! Objects the file animates rigidly (none in the Fox) stay at their rest
//! placement: the crowd plays skins.

use glam::Mat4;
use unbound::animation::{Playing, SkinnedMesh};
use unbound::loaders::gltf::parse_gltf_slice;
use unbound::{Camera, GpuFrameStats, ObjectDesc, ObjectHandle, Renderer, RendererConfig};
use unbound_harness::{Gpu, RenderTargets};
use unbound_scenes::bench::SceneSpec;
use unbound_scenes::crowd::crowd_playback;

use crate::gpu::COLOR_FORMAT;

/// The Fox, built in (so the bench runs from any directory).
const FOX_GLB: &[u8] = include_bytes!("../../../assets/gltfpack/Fox.glb");
/// Scene seconds per frame.
const SECONDS_PER_FRAME: f32 = 1.0 / 60.0;

/// unbound drawing the crowd, animated or static.
pub struct CrowdPath {
    renderer: Renderer,
    /// Per copy, its objects and their placement within the copy.
    copies: Vec<Vec<(ObjectHandle, Mat4)>>,
    /// What each instance plays, until the first frame hands it over
    /// (`None` from then on, and for the static crowd).
    playing: Option<Vec<Playing>>,
    /// The crowd plays (not the static one).
    animated: bool,
    targets: RenderTargets,
    latest: Option<GpuFrameStats>,
}

fn error(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl CrowdPath {
    /// The crowd of `scene` (one copy per object, at its placement) in a
    /// renderer made with `config`; animated or static.
    pub fn new(
        gpu: &Gpu,
        scene: &SceneSpec,
        config: RendererConfig,
        animated: bool,
    ) -> Result<Self, String> {
        let document = parse_gltf_slice(FOX_GLB, "Fox.glb".as_ref(), None).map_err(error)?;
        let mut renderer =
            Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, config).map_err(error)?;
        renderer.set_camera(&scene.camera).map_err(error)?;
        renderer.set_lighting(&scene.lighting).map_err(error)?;
        let loaded = document
            .upload(&mut renderer, Mat4::IDENTITY, None)
            .map_err(error)?;
        let data = &document.animation;
        let instances = scene.objects.len() as u32;
        if animated {
            renderer.set_animation(data, instances).map_err(error)?;
        }
        // Each skinned placement's mesh and joint spheres, made once for
        // every copy.
        let skinned_meshes: Vec<Option<SkinnedMesh<'_>>> = (0..loaded.placements.len())
            .map(|slot| {
                let driver = data.objects.get(slot)?;
                let influences = data.meshes[driver.mesh].skin.as_ref()?;
                let joints = data.skins[driver.skin?].joints.len();
                let positions = &document.meshes[driver.mesh].positions;
                Some(SkinnedMesh::new(influences, positions, joints))
            })
            .collect();
        let mut copies = Vec::with_capacity(scene.objects.len());
        for (index, placed) in scene.objects.iter().enumerate() {
            let mut objects = Vec::with_capacity(loaded.placements.len());
            for (slot, desc) in loaded.placements.iter().enumerate() {
                let world_from_object = placed.world_from_object * desc.world_from_object;
                let object = if index == 0 {
                    let object = loaded.objects[slot];
                    renderer
                        .set_transform(object, world_from_object)
                        .map_err(error)?;
                    object
                } else {
                    renderer
                        .add_object(&ObjectDesc {
                            world_from_object,
                            ..*desc
                        })
                        .map_err(error)?
                };
                let skin = data.objects.get(slot).and_then(|d| d.skin);
                if let Some(skin) = skin.filter(|_| animated) {
                    let skinned = skinned_meshes[slot].as_ref();
                    renderer
                        .set_object_skin(object, skinned, index as u32, skin)
                        .map_err(error)?;
                }
                objects.push((object, desc.world_from_object));
            }
            copies.push(objects);
        }
        let durations: Vec<f32> = data.clips.iter().map(|c| c.duration).collect();
        let playing = animated.then(|| {
            (0..instances)
                .map(|i| crowd_playback(i, &durations).map_or(Playing::Nothing, Playing::One))
                .collect()
        });
        Ok(Self {
            renderer,
            copies,
            playing,
            animated,
            targets: RenderTargets::new(&gpu.device, scene.width, scene.height, COLOR_FORMAT),
            latest: None,
        })
    }
}

impl crate::paths::FramePath for CrowdPath {
    fn move_object(&mut self, index: usize, world_from_copy: Mat4) -> Result<(), String> {
        for &(object, copy_from_object) in &self.copies[index] {
            self.renderer
                .set_transform(object, world_from_copy * copy_from_object)
                .map_err(error)?;
        }
        Ok(())
    }

    fn set_camera(&mut self, camera: &Camera) -> Result<(), String> {
        self.renderer.set_camera(camera).map_err(error)
    }

    fn animate(&mut self, frame: u32) -> Result<(), String> {
        let time = frame as f32 * SECONDS_PER_FRAME;
        match self.playing.take() {
            // What plays is handed over once; then only the time moves.
            Some(playing) => self.renderer.play_animation(&playing, time),
            None if self.animated => self.renderer.set_animation_time(time),
            None => Ok(()),
        }
        .map_err(error)
    }

    fn record_frame(&mut self, encoder: &mut wgpu::CommandEncoder) -> Result<(), String> {
        let target = crate::paths::frame(&self.targets);
        self.renderer.render(encoder, &target).map_err(error)?;
        Ok(())
    }

    fn pass_times(&mut self) -> crate::paths::PassTimes {
        self.latest = self.renderer.latest_gpu_stats();
        crate::paths::PassTimes::of(self.latest.as_ref())
    }

    fn counters(&self) -> Result<crate::paths::Counters, String> {
        let stats = self.latest.ok_or("no GPU statistics came back")?;
        Ok(crate::paths::Counters::of_unbound(
            &stats,
            &self.renderer,
            None,
        ))
    }

    fn drawn_objects(&self, _gpu: &Gpu) -> Result<Option<Vec<usize>>, String> {
        // Small triangles are counted from the scene's generated meshes;
        // the crowd's mesh is a file.
        Ok(None)
    }

    fn set_debug_view(&mut self, gpu: &Gpu, view: unbound::DebugView) -> Result<(), String> {
        let targets = (&mut self.renderer, &mut self.targets);
        crate::paths::set_unbound_debug_view(gpu, targets, view)
    }
}
