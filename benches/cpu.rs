//! CPU micro-benchmarks (criterion): the costs that stay on the CPU.
//!
//! GPU objects are created inside each benchmark function, on the software
//! adapter by default (`UNBOUND_ADAPTER` picks another), never at
//! registration. Run with `cargo bench --bench cpu`.

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use unbound::{Capacities, FrameTarget, ObjectDesc, Renderer, RendererConfig, TargetLoad, shapes};
use unbound_harness::{
    AdapterChoice, DeviceLimits, DeviceRequest, RenderTargets, instance_flags, open_headless,
};

struct Gpu {
    adapter: wgpu::Adapter,
    device: wgpu::Device,
    queue: wgpu::Queue,
    targets: RenderTargets,
}

fn gpu(capacities: &Capacities) -> Gpu {
    gpu_with(capacities, false)
}

/// A device with ray queries if `ray_queries` (the adapter must have them).
fn gpu_with(capacities: &Capacities, ray_queries: bool) -> Gpu {
    let choice = AdapterChoice::from_env(true);
    let unbound_harness::Gpu {
        adapter,
        device,
        queue,
        ..
    } = open_headless(
        &choice,
        capacities,
        instance_flags(),
        DeviceRequest {
            limits: DeviceLimits::AdapterMax,
            ray_queries,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let targets = RenderTargets::new(&device, 4, 4, wgpu::TextureFormat::Rgba8UnormSrgb);
    Gpu {
        adapter,
        device,
        queue,
        targets,
    }
}

impl Gpu {
    fn renderer(&self, capacities: Capacities) -> Renderer {
        self.renderer_with(RendererConfig {
            capacities,
            ..Default::default()
        })
    }

    fn renderer_with(&self, config: RendererConfig) -> Renderer {
        Renderer::new(&self.adapter, &self.device, &self.queue, config).unwrap()
    }

    /// Records, submits and waits for one frame.
    fn frame(&self, renderer: &mut Renderer) {
        self.timed_frame(renderer);
    }

    /// Records, submits and waits for one frame; returns the time taken to
    /// record it (`render` and `CommandEncoder::finish`, where wgpu encodes
    /// it) and from submission to the device's idle.
    fn timed_frame(&self, renderer: &mut Renderer) -> (Duration, Duration) {
        let start = Instant::now();
        let mut encoder = self.device.create_command_encoder(&Default::default());
        renderer
            .render(
                &mut encoder,
                &FrameTarget {
                    color: &self.targets.color_view,
                    depth: &self.targets.depth_view,
                    color_load: TargetLoad::Load,
                    depth_load: TargetLoad::Clear(unbound::FAR_DEPTH),
                },
            )
            .unwrap();
        let commands = encoder.finish();
        let recorded = start.elapsed();
        let start = Instant::now();
        self.queue.submit([commands]);
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        (recorded, start.elapsed())
    }
}

/// Moving 10,000 objects: CPU bookkeeping plus the next frame's upload.
fn update_transforms(c: &mut Criterion) {
    let capacities = Capacities::default();
    let gpu = gpu(&capacities);
    let mut renderer = gpu.renderer(capacities);
    let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let material = renderer.add_material(&Default::default()).unwrap();
    let objects: Vec<_> = (0..10_000)
        .map(|i| {
            renderer
                .add_object(&ObjectDesc {
                    mesh: cube,
                    material,
                    world_from_object: Mat4::from_translation(Vec3::X * i as f32),
                })
                .unwrap()
        })
        .collect();
    gpu.frame(&mut renderer);
    let mut step = 0.0f32;
    // Moves every object up by one.
    let mut move_all = |renderer: &mut Renderer| {
        step += 1.0;
        for (i, &object) in objects.iter().enumerate() {
            renderer
                .set_transform(
                    object,
                    Mat4::from_translation(Vec3::new(i as f32, step, 0.0)),
                )
                .unwrap();
        }
    };
    c.bench_function("set_transform x 10k", |b| {
        b.iter(|| move_all(&mut renderer));
    });
    c.bench_function("set_transform x 10k + frame upload", |b| {
        b.iter(|| {
            move_all(&mut renderer);
            gpu.frame(&mut renderer);
        });
    });
}

/// Adding one texture to heaps of 1k, 16k and 100k textures, including the
/// next frame's rebuild of the heap's bind group.
fn add_texture(c: &mut Criterion) {
    let mut group = c.benchmark_group("add one texture + heap rebuild");
    group.sample_size(10);
    for heap_size in [1_000u32, 16_000, 100_000] {
        let capacities = Capacities {
            textures_2d: heap_size + 64,
            ..Capacities::default()
        };
        let gpu = gpu(&capacities);
        let mut renderer = gpu.renderer(capacities);
        let texel = [200u8, 100, 50, 255];
        let desc = unbound::TextureDesc {
            label: None,
            width: 1,
            height: 1,
            format: wgpu::TextureFormat::Rgba8UnormSrgb,
            data: &texel,
            mips: unbound::Mips::None,
        };
        for _ in 0..heap_size {
            renderer.add_texture(&desc).unwrap();
        }
        gpu.frame(&mut renderer);
        group.bench_function(format!("{heap_size} textures"), |b| {
            b.iter_batched(
                || (),
                |()| {
                    let handle = renderer.add_texture(&desc).unwrap();
                    gpu.frame(&mut renderer);
                    renderer.remove_texture(handle).unwrap();
                },
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

/// Adding and removing one 64² texture in a paged heap
/// (`TextureHeap::Paged`) of 100k textures: the CPU time of the two calls
/// (a layer allocated, its texels kept and its write queued for the next
/// frame, a map entry; the remove drops the queued write), then the same
/// with the next frame, which records the layer's write and mips and
/// rebuilds nothing; and the frame alone, for the difference.
fn add_texture_paged(c: &mut Criterion) {
    let mut group = c.benchmark_group("add and remove one texture, paged heap");
    group.sample_size(20);
    let heap_size = 100_000u32;
    let capacities = Capacities {
        textures_2d: heap_size + 64,
        ..Capacities::default()
    };
    let gpu = gpu(&capacities);
    let mut renderer = gpu.renderer_with(RendererConfig {
        capacities,
        texture_heap: unbound::TextureHeap::Paged,
        ..Default::default()
    });
    let texels: Vec<u8> = std::iter::repeat_n([200u8, 100, 50, 255], 64 * 64)
        .flatten()
        .collect();
    let desc = unbound::TextureDesc {
        label: None,
        width: 64,
        height: 64,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        data: &texels,
        mips: unbound::Mips::Generate,
    };
    for i in 0..heap_size {
        renderer.add_texture(&desc).unwrap();
        if i % 1024 == 0 {
            gpu.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
        }
    }
    gpu.frame(&mut renderer);
    let rebuilds = renderer.heap().rebuilds();
    group.bench_function(format!("{heap_size} textures, add + remove"), |b| {
        b.iter(|| {
            let handle = renderer.add_texture(&desc).unwrap();
            renderer.remove_texture(handle).unwrap();
        });
    });
    gpu.frame(&mut renderer);
    // The frame alone (nothing added): what the add + frame + remove below
    // costs over it is the add's.
    group.bench_function(format!("{heap_size} textures, frame"), |b| {
        b.iter(|| gpu.frame(&mut renderer));
    });
    // The frame split: recording (the layer's write and mips recorded into
    // the frame's encoder) and submission to idle (the GPU's work).
    let mut split = Vec::new();
    group.bench_function(format!("{heap_size} textures, add + frame + remove"), |b| {
        b.iter_batched(
            || (),
            |()| {
                let handle = renderer.add_texture(&desc).unwrap();
                split.push(gpu.timed_frame(&mut renderer));
                renderer.remove_texture(handle).unwrap();
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
    // Empty when a filter left this benchmark out.
    if !split.is_empty() {
        let median = |mut times: Vec<Duration>| {
            times.sort();
            times[times.len() / 2]
        };
        let (recorded, executed): (Vec<_>, Vec<_>) = split.into_iter().unzip();
        println!(
            "paged heap of {heap_size}, add + frame + remove: frame recorded in {:.2?}, submit to idle {:.2?} (medians)",
            median(recorded),
            median(executed)
        );
    }
    println!(
        "paged heap of {heap_size}: {} pages, bind group rebuilt {} times while adding and removing",
        renderer.heap().page_count(),
        renderer.heap().rebuilds() - rebuilds
    );
}

/// Validating, packing (MikkTSpace tangents from its UVs included) and
/// uploading a 1M-triangle mesh.
fn upload_mesh(c: &mut Criterion) {
    let capacities = Capacities {
        vertices: 1 << 21,
        indices: 1 << 23,
        ..Capacities::default()
    };
    let gpu = gpu(&capacities);
    let mut renderer = gpu.renderer(capacities);
    let mesh = shapes::sphere(1000, 500);
    assert_eq!(mesh.triangle_count(), 1_000_000);
    let mut group = c.benchmark_group("mesh upload");
    group.sample_size(10);
    group.bench_function("1M triangles: add_mesh + frame", |b| {
        b.iter(|| {
            let handle = renderer.add_mesh(&mesh.as_mesh_data()).unwrap();
            gpu.frame(&mut renderer);
            renderer.remove_mesh(handle).unwrap();
        });
    });
    group.finish();
}

/// With ray queries (the adapter must have them): a frame that moves one
/// object rebuilds the TLAS over every object (wgpu 30 encodes every
/// instance on the CPU per build), a static frame builds nothing. For 1k,
/// 10k and 100k objects, the CPU time to record each kind of frame and its
/// time from submission to idle; and a 1M-triangle mesh's BLAS build.
fn acceleration_structures(c: &mut Criterion) {
    let mut group = c.benchmark_group("acceleration structures");
    group.sample_size(10);
    for objects in [1_000u32, 10_000, 100_000] {
        let capacities = Capacities {
            objects: objects + 64,
            ..Capacities::default()
        };
        let gpu = gpu_with(&capacities, true);
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            ray_queries: true,
            ..Default::default()
        });
        let cube = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
        let material = renderer.add_material(&Default::default()).unwrap();
        let place = |i: u32, lift: f32| {
            let (x, z) = ((i % 316) as f32, (i / 316) as f32);
            Mat4::from_translation(Vec3::new(x * 2.0, lift, z * 2.0))
        };
        let handles: Vec<_> = (0..objects)
            .map(|i| {
                renderer
                    .add_object(&ObjectDesc {
                        mesh: cube,
                        material,
                        world_from_object: place(i, 0.0),
                    })
                    .unwrap()
            })
            .collect();
        gpu.frame(&mut renderer);
        let mut lift = 0.0;
        for (name, moving) in [("TLAS rebuilt", true), ("static", false)] {
            let mut submit_to_idle = Vec::new();
            group.bench_function(format!("{objects} objects, {name}: record"), |b| {
                b.iter_custom(|iterations| {
                    let mut recording = Duration::ZERO;
                    for _ in 0..iterations {
                        if moving {
                            lift += 1.0;
                            renderer.set_transform(handles[0], place(0, lift)).unwrap();
                        }
                        let (recorded, executed) = gpu.timed_frame(&mut renderer);
                        recording += recorded;
                        submit_to_idle.push(executed);
                    }
                    recording
                });
            });
            submit_to_idle.sort();
            // Empty when a filter left this benchmark out.
            if let Some(median) = submit_to_idle.get(submit_to_idle.len() / 2) {
                println!("{objects} objects, {name}: submit to idle, median {median:.2?}");
            }
        }
    }
    let capacities = Capacities {
        vertices: 1 << 21,
        indices: 1 << 23,
        ..Capacities::default()
    };
    let gpu = gpu_with(&capacities, true);
    let mesh = shapes::sphere(1000, 500);
    let mut frame_times = Vec::new();
    for ray_queries in [false, true] {
        let mut renderer = gpu.renderer_with(RendererConfig {
            capacities,
            ray_queries,
            ..Default::default()
        });
        for _ in 0..3 {
            let handle = renderer.add_mesh(&mesh.as_mesh_data()).unwrap();
            let (recorded, executed) = gpu.timed_frame(&mut renderer);
            frame_times.push((ray_queries, recorded, executed));
            renderer.remove_mesh(handle).unwrap();
        }
    }
    for (ray_queries, recorded, executed) in frame_times {
        println!(
            "1M-triangle mesh added, ray queries {ray_queries}: frame recorded in {recorded:.2?}, submit to idle {executed:.2?}"
        );
    }
    group.finish();
}

criterion_group!(
    benches,
    update_transforms,
    add_texture,
    add_texture_paged,
    upload_mesh,
    acceleration_structures
);
criterion_main!(benches);
