// The material's texels at one surface point, shared by every pass that
// shades the camera's surfaces: the draw pass's fragments (draw.wgsl's
// fs_main, and its alpha test in fs_depth) and the visibility buffer's
// material pass (visibility.wgsl's fs_material), which reconstructs the
// same VertexOutput and UV derivatives analytically (with a texture budget,
// both write the texture feedback here: heap.wgsl's note_texture_feedback).
// What is shaded from
// the texels is surface.wgsl's shade_surface, one definition for both.

fn sample_material(t: MaterialTexture, in: VertexOutput, d: UvDerivatives) -> vec4<f32> {
    let c = texture_coordinates(t, in, d);
#if TEXTURE_FEEDBACK
    // Pages under a texture budget: the level the streamer should load.
    note_texture_feedback(t.texture, in.clip_position.xy, c.dx, c.dy);
#endif
    return sample_texture_2d_grad(t.texture, t.sampler, c.uv, c.dx, c.dy);
}

// Whether sampling `t` reads the missing texture (an invalid slot).
fn samples_missing(t: MaterialTexture) -> bool {
    return checked_index(t.texture, counts.textures_2d) == TEXTURE_MISSING;
}

// The material's textures in SurfaceTexels order: base colour,
// metallic-roughness, normal, occlusion, emissive.
fn material_texture(material: Material, i: u32) -> MaterialTexture {
    switch i {
        case 0u: { return material.base_color; }
        case 1u: { return material.metallic_roughness; }
        case 2u: { return material.normal; }
        case 3u: { return material.occlusion; }
        default: { return material.emissive; }
    }
}

// Whether the shading samples texture `i` (material_texture order).
fn texture_used(material: Material, i: u32) -> bool {
    switch i {
        case 2u: { return (material.flags & MATERIAL_FLAG_NORMAL_MAP) != 0u; }
        case 4u: { return material.emissive.texture != TEXTURE_WHITE && any(material.emissive_factor != vec3(0.0)); }
        default: { return material_texture(material, i).texture != TEXTURE_WHITE; }
    }
}

// Whether an alpha-masked material's alpha test drops the point: the base
// colour's texel sampled with the gradients the shading uses, so that the
// depth pre-pass, the visibility pass and the shading agree.
fn alpha_masked_out(material: Material, in: VertexOutput, d: UvDerivatives) -> bool {
    if material.alpha_mode != ALPHA_MASK {
        return false;
    }
    var texels = default_texels();
    if texture_used(material, 0u) {
        texels.base_color = sample_material(material.base_color, in, d);
    }
    return surface_base_color(material, texels, in).a < material.alpha_cutoff;
}

// The texels a material's shading reads, and whether any was the missing
// texture (the debug highlight).
struct SampledSurface {
    texels: SurfaceTexels,
    missing: bool,
}

// Samples the textures `material` uses at `in` with gradients `d`.
// Textures are sampled with explicit gradients, so a material only pays
// for the textures it uses (the white "no texture" slot is skipped; an
// invalid slot is not white and samples the missing texture). The texture
// indices are non-uniform. Tier C: one loop, one sampling site, since it
// samples through a switch over its texture arrays and a copy of that
// switch per texture makes a shader llvmpipe (GL) compiles for minutes.
fn sample_surface(material: Material, in: VertexOutput, d: UvDerivatives) -> SampledSurface {
    let defaults = default_texels();
    var sampled = array<vec4<f32>, 5>(defaults.base_color, defaults.metallic_roughness, defaults.normal, defaults.occlusion, defaults.emissive);
    var sampled_missing = false;
#if TEXTURE_ARRAYS
    for (var i = 0u; i < 5u; i++) {
        if texture_used(material, i) {
            let t = material_texture(material, i);
            sampled[i] = sample_material(t, in, d);
            sampled_missing = sampled_missing || samples_missing(t);
        }
    }
#else
    // Binding arrays: one site per texture, with constant indices into
    // `sampled` (the loop above, dynamically indexed, costs 15-20% of the
    // H200's draw pass: docs/PERFORMANCE.md).
    if texture_used(material, 0u) {
        sampled[0] = sample_material(material.base_color, in, d);
        sampled_missing = sampled_missing || samples_missing(material.base_color);
    }
    if texture_used(material, 1u) {
        sampled[1] = sample_material(material.metallic_roughness, in, d);
        sampled_missing = sampled_missing || samples_missing(material.metallic_roughness);
    }
    if texture_used(material, 2u) {
        sampled[2] = sample_material(material.normal, in, d);
        sampled_missing = sampled_missing || samples_missing(material.normal);
    }
    if texture_used(material, 3u) {
        sampled[3] = sample_material(material.occlusion, in, d);
        sampled_missing = sampled_missing || samples_missing(material.occlusion);
    }
    if texture_used(material, 4u) {
        sampled[4] = sample_material(material.emissive, in, d);
        sampled_missing = sampled_missing || samples_missing(material.emissive);
    }
#endif
    let texels = SurfaceTexels(sampled[0], sampled[1], sampled[2], sampled[3], sampled[4]);
    return SampledSurface(texels, sampled_missing);
}
