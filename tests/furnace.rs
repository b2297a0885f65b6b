//! The white furnace: under a uniform white environment of radiance 1 (and
//! no sun), a white metal sphere reflects its directional albedo. Read from
//! the renderer's HDR target before exposure and tone mapping
//! (`Renderer::hdr_target`: half floats, no curve, no clipping, no 8-bit
//! rounding), the mean over each sphere's inner disc equals the CPU
//! integration of the same BRDF (`Brdf::directional_albedo`) averaged over
//! the same disc, at roughness 0 to 1. Without multiple-scattering compensation the albedo
//! falls below 1 as roughness grows; the test checks that too.

mod common;

use common::*;

#[test]
fn white_metal_spheres_reflect_their_directional_albedo_in_a_white_furnace() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    check_furnace(&white_furnace(&gpu));
    gpu.finish();
}
