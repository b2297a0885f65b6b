//! The resource heap, arena and tables: handles, slot reuse, references,
//! cross-frame safety, and GPU round trips through every table.

mod common;

use common::*;
use glam::{Mat4, Vec3};
use unbound::gpu_types::{GpuCluster, GpuMaterial, GpuMesh, GpuObject, GpuVertex};
use unbound::heap::HeapError;
use unbound::shapes;
use unbound::{Error, HandleError, Material, MeshData, ObjectDesc, SamplerDesc, TextureRef};

#[test]
fn stale_and_foreign_handles_are_typed_errors() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let mut other = gpu.renderer(&Gpu::default_capacities());
    let texture = solid_texture(&mut renderer, [1, 2, 3, 255]);
    renderer.remove_texture(texture).unwrap();
    let stale = renderer.remove_texture(texture).unwrap_err();
    assert_matches!(
        stale,
        Error::Heap(HeapError::Handle(HandleError::Stale { .. }))
    );
    let sampler = renderer.heap().default_sampler();
    let in_material = renderer
        .add_material(&material_showing(texture, sampler))
        .unwrap_err();
    assert_matches!(
        in_material,
        Error::Material(unbound::MaterialError::Handle(HandleError::Stale { .. }))
    );
    let foreign = solid_texture(&mut other, [9, 9, 9, 255]);
    let error = renderer.remove_texture(foreign).unwrap_err();
    assert_matches!(
        error,
        Error::Heap(HeapError::Handle(HandleError::Foreign { .. }))
    );
    let reserved = renderer.heap().missing_texture();
    assert_matches!(
        renderer.remove_texture(reserved),
        Err(Error::Heap(HeapError::Handle(HandleError::Reserved { .. })))
    );
    gpu.finish();
}

#[test]
fn freed_slots_are_recycled_lowest_first_and_bound_prefix_shrinks() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let a = solid_texture(&mut renderer, [255, 0, 0, 255]);
    let b = solid_texture(&mut renderer, [0, 255, 0, 255]);
    let c = solid_texture(&mut renderer, [0, 0, 255, 255]);
    assert_eq!(
        (a.slot(), b.slot(), c.slot()),
        (2, 3, 4),
        "slots 0 and 1 are reserved"
    );
    assert_eq!(renderer.heap().counts().textures_2d, 5);
    renderer.remove_texture(a).unwrap();
    renderer.remove_texture(c).unwrap();
    assert_eq!(
        renderer.heap().counts().textures_2d,
        4,
        "nothing past the highest live slot is bound"
    );
    let d = solid_texture(&mut renderer, [9, 9, 9, 255]);
    assert_eq!(
        (d.slot(), d.generation()),
        (2, 1),
        "lowest free slot, next generation"
    );
    assert!(renderer.heap().texture_2d_slot(a).is_err());
    // Identical samplers are shared; different ones get new slots.
    let s1 = renderer.add_sampler(&SamplerDesc::default()).unwrap();
    assert_eq!(s1, renderer.heap().default_sampler());
    let nearest = SamplerDesc {
        mag_filter: wgpu::FilterMode::Nearest,
        ..Default::default()
    };
    let s2 = renderer.add_sampler(&nearest).unwrap();
    assert_eq!(s2.slot(), 1);
    gpu.finish();
}

#[test]
fn textures_and_samplers_in_use_cannot_be_freed() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let texture = solid_texture(&mut renderer, [255, 0, 0, 255]);
    let sampler = renderer
        .add_sampler(&SamplerDesc {
            address_u: wgpu::AddressMode::ClampToEdge,
            ..Default::default()
        })
        .unwrap();
    let material = renderer
        .add_material(&Material {
            base_color: Some(TextureRef::new(texture, sampler)),
            emissive: Some(TextureRef::new(texture, sampler)),
            ..Default::default()
        })
        .unwrap();
    let error = renderer.remove_texture(texture).unwrap_err();
    assert_matches!(error, Error::Heap(HeapError::InUse { references: 2, .. }));
    assert!(renderer.remove_sampler(sampler).is_err());
    // Updating the material to drop the texture releases it.
    renderer
        .update_material(material, &Material::default())
        .unwrap();
    renderer.remove_texture(texture).unwrap();
    renderer.remove_sampler(sampler).unwrap();
    // Materials used by objects and meshes used by objects are protected too.
    let mesh = renderer.add_mesh(&shapes::cube().as_mesh_data()).unwrap();
    let object = renderer
        .add_object(&ObjectDesc {
            mesh,
            material,
            world_from_object: Mat4::IDENTITY,
        })
        .unwrap();
    assert_matches!(
        renderer.remove_material(material),
        Err(Error::Material(unbound::MaterialError::InUse {
            objects: 1,
            ..
        }))
    );
    assert_matches!(
        renderer.remove_mesh(mesh),
        Err(Error::Geometry(unbound::GeometryError::InUse {
            objects: 1,
            ..
        }))
    );
    renderer.remove_object(object).unwrap();
    renderer.remove_material(material).unwrap();
    renderer.remove_mesh(mesh).unwrap();
    gpu.finish();
}

/// Frame 1 samples texture T in slot k. Before frame 1 is even submitted, T
/// is freed, slot k is reused by U and frame 2 is recorded. Both frames are
/// submitted together: each shows what it was recorded with.
#[test]
fn recorded_frame_renders_what_it_was_recorded_with() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let seen = record_across_a_free(&gpu, &mut renderer, |_, _| {});
    assert_eq!(seen.blue.slot(), seen.red.slot(), "slot reused at once");
    assert!(
        seen.second_stats.bind_group_rebuilds >= 1,
        "heap changed, so its group was rebuilt"
    );
    seen.assert_each_frame_shows_its_texture();
    gpu.finish();
}

/// Full 64x64 one-texel checker squeezed into 8x8 pixels: with mips the
/// GPU-generated level 3 averages it to grey; without, it aliases.
#[test]
fn mips_are_generated_on_the_gpu() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let quad = flat_quad_scene(&mut renderer, 1.0);
    let checker = unbound_scenes::checker(64, 64, [255; 4], [0, 0, 0, 255]);
    let nearest = renderer
        .add_sampler(&SamplerDesc {
            mag_filter: wgpu::FilterMode::Nearest,
            min_filter: wgpu::FilterMode::Nearest,
            mipmap_filter: wgpu::MipmapFilterMode::Nearest,
            ..Default::default()
        })
        .unwrap();
    let mut values = Vec::new();
    for mips in [unbound::Mips::Generate, unbound::Mips::None] {
        let texture = renderer
            .add_texture(&unbound::TextureDesc {
                label: None,
                width: 64,
                height: 64,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                data: &checker,
                mips,
            })
            .unwrap();
        let material = renderer
            .add_material(&material_showing(texture, nearest))
            .unwrap();
        let object = renderer
            .add_object(&ObjectDesc {
                mesh: quad,
                material,
                world_from_object: quad_at(Vec3::ZERO, 2.0, 2.0),
            })
            .unwrap();
        let target = Target::new(&gpu, 8, 8);
        let (image, _) = target.render(&gpu, &mut renderer);
        values.push(image.pixels().map(|p| p[0]).collect::<Vec<_>>());
        renderer.remove_object(object).unwrap();
    }
    // Nearest sampling of level 3 (8x8): each texel averages an 8x8 block,
    // linear 0.5 = sRGB 188. Level 0 alone gives pure black or white (as
    // flat lighting shows them).
    let shown = |v: u8| flat_shown_srgb([v, v, v, 255])[0];
    assert!(
        values[0].iter().all(|&v| v.abs_diff(shown(188)) <= 3),
        "mipmapped: {:?}",
        values[0]
    );
    assert!(
        values[1].iter().all(|&v| v == shown(0) || v == shown(255)),
        "unmipmapped should alias: {:?}",
        values[1]
    );
    gpu.finish();
}

/// The heap's texture and sampler creation, public for renderers outside
/// the heap: checked like the heap's uploads, full chains for RGBA8.
#[test]
fn public_texture_creation_checks_its_input() {
    use unbound::heap::{
        CompressedTextureDesc, TextureDesc, create_compressed_texture_2d, create_sampler,
        create_texture_2d,
    };
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut mipmaps = unbound::mipmaps::MipGenerator::new(device);
    let empty = create_texture_2d(device, queue, &mut mipmaps, &TextureDesc::default());
    assert!(
        matches!(empty, Err(HeapError::InvalidSize { .. })),
        "{empty:?}"
    );
    let checker = unbound_scenes::checker(64, 64, [255; 4], [0, 0, 0, 255]);
    let desc = TextureDesc {
        width: 64,
        height: 64,
        data: &checker,
        ..Default::default()
    };
    let texture = create_texture_2d(device, queue, &mut mipmaps, &desc).unwrap();
    assert_eq!(texture.mip_level_count(), 7);
    let short = create_texture_2d(
        device,
        queue,
        &mut mipmaps,
        &TextureDesc {
            data: &checker[4..],
            ..desc
        },
    );
    assert!(
        matches!(short, Err(HeapError::DataLength { .. })),
        "{short:?}"
    );
    let not_compressed = create_compressed_texture_2d(
        device,
        queue,
        &CompressedTextureDesc {
            label: None,
            width: 4,
            height: 4,
            format: wgpu::TextureFormat::Rgba8Unorm,
            levels: &[&[0; 64]],
        },
    );
    assert!(
        matches!(not_compressed, Err(HeapError::UnsupportedFormat { .. })),
        "{not_compressed:?}"
    );
    create_sampler(device, &SamplerDesc::default());
    gpu.finish();
}

#[test]
fn every_table_round_trips_through_the_gpu() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let meshes = unbound_scenes::mesh_family(5);
    let handles: Vec<_> = meshes
        .iter()
        .map(|m| renderer.add_mesh(&m.as_mesh_data()).unwrap())
        .collect();
    let texture = solid_texture(&mut renderer, [10, 20, 30, 255]);
    let material = renderer
        .add_material(&Material {
            base_color_factor: glam::Vec4::new(0.5, 0.25, 1.0, 1.0),
            base_color: Some(TextureRef {
                uv_set: 1,
                ..TextureRef::new(texture, renderer.heap().default_sampler())
            }),
            alpha_mode: unbound::AlphaMode::Mask { cutoff: 0.3 },
            double_sided: true,
            ..Default::default()
        })
        .unwrap();
    let objects: Vec<_> = handles
        .iter()
        .enumerate()
        .map(|(i, &mesh)| {
            renderer
                .add_object(&ObjectDesc {
                    mesh,
                    material,
                    world_from_object: Mat4::from_translation(Vec3::X * i as f32),
                })
                .unwrap()
        })
        .collect();
    let target = Target::new(&gpu, 8, 8);
    target.render(&gpu, &mut renderer);

    // Meshes: table entries, vertices (packed) and pre-offset indices.
    for (mesh, &handle) in meshes.iter().zip(&handles) {
        let slot = handle.slot();
        let entry: GpuMesh = bytemuck::pod_read_unaligned(&gpu.read_buffer(
            renderer.arena().mesh_buffer(),
            u64::from(slot) * size_of::<GpuMesh>() as u64,
            size_of::<GpuMesh>() as u64,
        ));
        // Generated tangents may split vertices: the packed mesh is what
        // the arena holds.
        let packed = mesh.as_mesh_data().packed();
        assert_eq!(entry.index_count as usize, mesh.indices.len());
        assert_eq!(entry.vertex_count as usize, packed.vertices.len());
        let indices = gpu.read_u32s(
            renderer.arena().index_buffer(),
            u64::from(entry.first_index) * unbound::gpu_types::INDEX_SIZE_BYTES,
            u64::from(entry.index_count),
        );
        let expected: Vec<u32> = packed
            .indices
            .iter()
            .map(|i| i + entry.first_vertex)
            .collect();
        assert_eq!(triangles(&indices), triangles(&expected));
        let stride = size_of::<GpuVertex>() as u64;
        let bytes = gpu.read_buffer(
            renderer.arena().vertex_buffer(),
            u64::from(entry.first_vertex) * stride,
            u64::from(entry.vertex_count) * stride,
        );
        let vertices: Vec<GpuVertex> = bytemuck::pod_collect_to_vec(&bytes);
        assert_eq!(vertices, packed.vertices);
    }
    // Materials.
    let slot = renderer.materials().resolve(material).unwrap();
    let gpu_material: GpuMaterial = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.materials().buffer(),
        u64::from(slot) * 304,
        304,
    ));
    assert_eq!(&gpu_material, renderer.materials().gpu_entry(slot).unwrap());
    assert_eq!(gpu_material.base_color.texture, texture.slot());
    assert_eq!(
        (
            gpu_material.alpha_mode,
            gpu_material.alpha_cutoff,
            gpu_material.base_color.uv_set
        ),
        (1, 0.3, 1)
    );
    // Objects, bounds and batch streams.
    for &object in &objects {
        let slot = renderer.objects().resolve(object).unwrap();
        let entry: GpuObject = bytemuck::pod_read_unaligned(&gpu.read_buffer(
            renderer.objects().object_buffer(),
            u64::from(slot) * size_of::<GpuObject>() as u64,
            size_of::<GpuObject>() as u64,
        ));
        assert_eq!(entry, renderer.objects().get(object).unwrap());
        let sphere: [f32; 4] = bytemuck::pod_read_unaligned(&gpu.read_buffer(
            renderer.objects().bounds_buffer(),
            u64::from(slot) * 16,
            16,
        ));
        assert_eq!(
            sphere,
            renderer.objects().world_sphere_of_slot(slot).unwrap()
        );
        // The batch stream holds the mesh, the masked bit and the pipeline
        // bucket (this material is alpha-masked and double-sided).
        assert_eq!(
            gpu.read_u32s(
                renderer.objects().batch_buffer(),
                u64::from(slot) * size_of::<u32>() as u64,
                1
            )[0],
            entry.mesh
                | unbound::gpu_types::BATCH_MASKED
                | (unbound::gpu_types::BUCKET_DOUBLE_SIDED << unbound::gpu_types::BUCKET_SHIFT)
        );
    }
    gpu.finish();
}

/// The arena grows by reallocation and GPU copy; freed ranges are reused.
#[test]
fn arena_grows_keeps_contents_and_reuses_freed_ranges() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let target = Target::new(&gpu, 8, 8);
    let first = shapes::sphere(16, 8);
    let first_handle = renderer.add_mesh(&first.as_mesh_data()).unwrap();
    target.render(&gpu, &mut renderer);
    let initial_bytes = renderer.arena().vertex_buffer().size();
    // Enough vertices to force at least one reallocation.
    let big = shapes::sphere(400, 200);
    let big_handle = renderer.add_mesh(&big.as_mesh_data()).unwrap();
    target.render(&gpu, &mut renderer);
    assert!(
        renderer.arena().vertex_buffer().size() > initial_bytes,
        "arena grew"
    );
    let stride = size_of::<GpuVertex>() as u64;
    let first_vertices = first.as_mesh_data().packed().vertices;
    let bytes = gpu.read_buffer(
        renderer.arena().vertex_buffer(),
        0,
        first_vertices.len() as u64 * stride,
    );
    assert_eq!(
        bytemuck::pod_collect_to_vec::<u8, GpuVertex>(&bytes),
        first_vertices,
        "old contents survived the move"
    );
    let before: GpuMesh = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.arena().mesh_buffer(),
        u64::from(big_handle.slot()) * size_of::<GpuMesh>() as u64,
        size_of::<GpuMesh>() as u64,
    ));
    renderer.remove_mesh(big_handle).unwrap();
    let again = renderer.add_mesh(&big.as_mesh_data()).unwrap();
    target.render(&gpu, &mut renderer);
    let after: GpuMesh = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.arena().mesh_buffer(),
        u64::from(again.slot()) * size_of::<GpuMesh>() as u64,
        size_of::<GpuMesh>() as u64,
    ));
    assert_eq!(
        (after.first_vertex, after.first_index),
        (before.first_vertex, before.first_index),
        "freed range reused"
    );
    let _ = first_handle;
    gpu.finish();
}

/// Adding and removing a mesh between two frames, again and again, leaves
/// nothing to upload: a removed mesh takes its pending upload with it, so
/// such loops do not grow the next frame's staging buffer. A mesh added to
/// the reused slot afterwards still arrives whole.
#[test]
fn removed_meshes_drop_their_pending_upload() {
    let (gpu, mut renderer) = Gpu::with_renderer();
    let target = Target::new(&gpu, 8, 8);
    target.render(&gpu, &mut renderer);
    let sphere = shapes::sphere(32, 16);
    let data = sphere.as_mesh_data();
    let mesh_bytes =
        (data.positions.len() * size_of::<GpuVertex>() + data.indices.len() * 4) as u64;
    for _ in 0..200 {
        let mesh = renderer.add_mesh(&data).unwrap();
        assert_eq!(renderer.arena().pending_upload_bytes(), mesh_bytes);
        renderer.remove_mesh(mesh).unwrap();
        assert_eq!(renderer.arena().pending_upload_bytes(), 0);
    }
    let kept = renderer.add_mesh(&data).unwrap();
    let (_, stats) = target.render(&gpu, &mut renderer);
    assert_eq!(renderer.arena().pending_upload_bytes(), 0, "uploaded");
    let entry: GpuMesh = bytemuck::pod_read_unaligned(&gpu.read_buffer(
        renderer.arena().mesh_buffer(),
        u64::from(kept.slot()) * size_of::<GpuMesh>() as u64,
        size_of::<GpuMesh>() as u64,
    ));
    // The kept mesh plus its clusters, its mesh-table entry, the counts and
    // uniforms.
    let kept_bytes = mesh_bytes + u64::from(entry.cluster_count) * size_of::<GpuCluster>() as u64;
    assert!(
        (kept_bytes..kept_bytes + 1024).contains(&stats.bytes_uploaded),
        "{} bytes uploaded for one mesh of {kept_bytes} (with its clusters)",
        stats.bytes_uploaded
    );
    let stride = size_of::<GpuVertex>() as u64;
    let vertices = gpu.read_buffer(
        renderer.arena().vertex_buffer(),
        u64::from(entry.first_vertex) * stride,
        data.positions.len() as u64 * stride,
    );
    assert_eq!(
        bytemuck::pod_collect_to_vec::<u8, GpuVertex>(&vertices),
        data.packed().vertices
    );
    let indices = gpu.read_u32s(
        renderer.arena().index_buffer(),
        u64::from(entry.first_index) * 4,
        data.indices.len() as u64,
    );
    let expected: Vec<u32> = data
        .indices
        .iter()
        .map(|i| i + entry.first_vertex)
        .collect();
    assert_eq!(triangles(&indices), triangles(&expected));
    gpu.finish();
}

/// One frame may upload more than the device's `max_buffer_size` in all
/// (each table fits the limit, their sum need not): the upload is staged in
/// several buffers, every byte lands, and wgpu reports nothing.
#[test]
fn a_frame_uploading_more_than_the_largest_buffer_is_split() {
    const VERTICES: usize = 16_384;
    const INDICES: usize = 1_048_575;
    let capacities = unbound::Capacities {
        vertices: 1 << 20,
        indices: 1 << 26,
        ..Gpu::default_capacities()
    };
    let gpu = Gpu::new(&capacities);
    let mut renderer = gpu.renderer(&capacities);
    let max_buffer_size = gpu.device.limits().max_buffer_size;
    let positions: Vec<[f32; 3]> = (0..VERTICES)
        .map(|i| [i as f32, (i % 7) as f32, 1.0])
        .collect();
    // Not periodic, so a copy landing a few bytes off shows.
    let indices: Vec<u32> = (0..INDICES as u64)
        .map(|i| ((i * 2_654_435_761) % VERTICES as u64) as u32)
        .collect();
    let data = MeshData {
        positions: &positions,
        indices: &indices,
        ..Default::default()
    };
    let mesh_bytes = (VERTICES * size_of::<GpuVertex>() + INDICES * 4) as u64;
    let count = max_buffer_size / mesh_bytes + 1;
    let meshes: Vec<_> = (0..count)
        .map(|_| renderer.add_mesh(&data).unwrap())
        .collect();
    let target = Target::new(&gpu, 8, 8);
    let (_, stats) = target.render(&gpu, &mut renderer);
    assert!(
        stats.bytes_uploaded > max_buffer_size,
        "{} bytes uploaded, the largest buffer is {max_buffer_size}",
        stats.bytes_uploaded
    );
    gpu.finish();
    let packed = data.packed().vertices;
    let stride = size_of::<GpuVertex>() as u64;
    for mesh in meshes {
        let entry: GpuMesh = bytemuck::pod_read_unaligned(&gpu.read_buffer(
            renderer.arena().mesh_buffer(),
            u64::from(mesh.slot()) * size_of::<GpuMesh>() as u64,
            size_of::<GpuMesh>() as u64,
        ));
        let vertices = gpu.read_buffer(
            renderer.arena().vertex_buffer(),
            u64::from(entry.first_vertex) * stride,
            VERTICES as u64 * stride,
        );
        assert!(
            bytemuck::pod_collect_to_vec::<u8, GpuVertex>(&vertices) == packed,
            "vertices of mesh slot {}",
            mesh.slot()
        );
        let stored = gpu.read_u32s(
            renderer.arena().index_buffer(),
            u64::from(entry.first_index) * 4,
            INDICES as u64,
        );
        let expected: Vec<u32> = indices.iter().map(|i| i + entry.first_vertex).collect();
        assert!(
            triangles(&stored) == triangles(&expected),
            "indices of mesh slot {}",
            mesh.slot()
        );
    }
    gpu.finish();
}

/// A mesh's triangles, each with its corners in their order (its winding),
/// sorted: the arena stores a mesh's triangles in cluster order
/// (`src/geometry/clusters.rs`), the same triangles as given, each once.
fn triangles(indices: &[u32]) -> Vec<[u32; 3]> {
    let mut triangles: Vec<[u32; 3]> = indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    triangles.sort_unstable();
    triangles
}
