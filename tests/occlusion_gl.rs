//! Occlusion and small-object culling on tier C through wgpu's GL backend
//! (Mesa's llvmpipe): the image is the one frustum culling alone draws,
//! frame after frame, while the camera uncovers objects, and small-object
//! culling leaves it unchanged. Its own process: GL and Vulkan
//! software drivers slow each other badly side by side.

mod common;

use common::occlusion_scene::compare_path;
use common::*;
use unbound::Tier;
use unbound::output::Msaa;

#[test]
fn the_image_is_the_same_with_occlusion_culling_on_and_off_on_gl() {
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    let (late, occluded) = compare_path(&gpu, Some(Tier::C), true, Msaa::X1);
    assert!(occluded > 0, "nothing was occluded");
    assert!(late > 0, "nothing was uncovered");
}

#[test]
fn the_image_is_the_same_with_small_object_culling_on_and_off_on_gl() {
    let gpu = Gpu::with_backend(&Gpu::default_capacities(), wgpu::Backends::GL);
    common::small_scene::compare_images(&gpu, Some(Tier::C));
}
