// Occlusion culling's part of the cull pass (cull.wgsl): the visibility
// bits, what the camera and each shadow cascade keep in each phase, and
// the late phase's test (is a bounding sphere hidden behind the depth
// pyramid built from the early phase's depth of the late phase's view?).
// Needs `frame` (the camera's clip_from_world), `shadows` (the cascades'),
// `cull_phase`, `visibility`, `depth_pyramid` and projection.wgsl. Its CPU
// twin, formula for formula, is src/occlusion.rs (`DepthPyramid::test_sphere`).
//
// Depth is standard (0 near, 1 far, compare Less): the pyramid holds the
// farthest (largest) depth, and a sphere is hidden when the nearest depth
// of its box is farther than every pyramid texel it covers.
//
// Pyramid level 0 is the depth target's size, each texel the farthest
// sample of its pixel; level l has wgpu's mip size max(1, size >> l), its
// texel t covers pixels [t << l, (t + 1) << l), the last one of a row or
// column reaching to the edge (src/passes/pyramid.rs builds it so).

// Whether the sphere's world box, projected by `clip_from_world` (the late
// phase's view: the camera's, or a cascade's orthographic one, whose
// pancaked casters reach depth 0 and are never hidden), lies entirely
// behind the pyramid: its nearest depth beyond the farthest depth of the
// (at most 2 x 2) texels covering its pixel rectangle, at the finest level
// where at most 2 x 2 do. A box reaching the near plane is never hidden.
fn sphere_occluded(clip_from_world: mat4x4<f32>, sphere: vec4<f32>) -> bool {
    var lo: vec3<f32>;
    var hi: vec3<f32>;
    if !sphere_ndc_box(clip_from_world, sphere, &lo, &hi) || lo.z <= 0.0 {
        return false;
    }
    let size = textureDimensions(depth_pyramid, 0);
    let levels = textureNumLevels(depth_pyramid);
    let extent = vec2<f32>(size);
    // Pixels whose area the rectangle touches (y down in the target).
    let first = vec2(lo.x * 0.5 + 0.5, 0.5 - hi.y * 0.5) * extent;
    let last = vec2(hi.x * 0.5 + 0.5, 0.5 - lo.y * 0.5) * extent;
    let p0 = vec2<u32>(clamp(floor(first), vec2(0.0), extent - 1.0));
    let p1 = vec2<u32>(clamp(floor(last), vec2(0.0), extent - 1.0));
    var level = 0u;
    var t0 = p0;
    var t1 = p1;
    loop {
        let level_size = max(size >> vec2(level), vec2(1u));
        t0 = min(p0 >> vec2(level), level_size - 1u);
        t1 = min(p1 >> vec2(level), level_size - 1u);
        if all(t1 - t0 <= vec2(1u)) || level + 1u >= levels {
            break;
        }
        level += 1u;
    }
    // The (at most) 2 x 2 texels, unrolled: four loads, no loop (the
    // last level of the full chain is 1 x 1, so the search above always
    // ends with them; anything wider is kept, conservatively).
    if any(t1 - t0 > vec2(1u)) {
        return false;
    }
    let level_size = max(size >> vec2(level), vec2(1u));
    let farthest = max(
        max(pyramid_texel(t0, level, level_size), pyramid_texel(vec2(t1.x, t0.y), level, level_size)),
        max(pyramid_texel(vec2(t0.x, t1.y), level, level_size), pyramid_texel(t1, level, level_size)),
    );
    return lo.z > farthest;
}

// Texel `t` of pyramid level `level` (of `level_size`), sampled at its
// centre with the nearest filter: exactly the texel.
fn pyramid_texel(t: vec2<u32>, level: u32, level_size: vec2<u32>) -> f32 {
    let uv = (vec2<f32>(t) + 0.5) / vec2<f32>(level_size);
    return textureSampleLevel(depth_pyramid, pyramid_sampler, uv, f32(level)).r;
}

// The rest is the instance cull's (cluster_cull.wgsl, which defines
// PYRAMID_TEST_ONLY, takes the pyramid test alone).
#if !PYRAMID_TEST_ONLY
// The visibility buffer holds 2 + MAX_CASCADES bit arrays of equal
// length: the camera's last verdicts (what its early phase draws, read by
// the bounds view), then the pyramid verdicts of the late phase running
// (`test_occlusion`'s output, read by the same late phase), then each
// cascade's last verdicts.
fn bit_words() -> u32 {
    return arrayLength(&visibility) / (2u + MAX_CASCADES);
}

// Where view `view`'s last verdicts start: the camera's first, cascade c
// (view 1 + c) after the verdicts.
fn view_bits(view: u32) -> u32 {
    return select(0u, (1u + view) * bit_words(), view > 0u);
}

fn read_bit(base: u32, i: u32) -> bool {
    let word = i / 32u;
    if word >= bit_words() {
        return false;
    }
    return ((atomicLoad(&visibility[base + word]) >> (i % 32u)) & 1u) != 0u;
}

fn write_bit(base: u32, i: u32, value: bool) {
    let word = i / 32u;
    if word >= bit_words() {
        return;
    }
    let bit = 1u << (i % 32u);
    if value {
        atomicOr(&visibility[base + word], bit);
    } else {
        atomicAnd(&visibility[base + word], ~bit);
    }
}

fn visibility_bit(i: u32) -> bool {
    return read_bit(0u, i);
}

fn set_visibility_bit(i: u32, visible: bool) {
    write_bit(0u, i, visible);
}

// Whether `test_occlusion` found instance `i` in front of the pyramid.
fn unoccluded_bit(i: u32) -> bool {
    return read_bit(bit_words(), i);
}

// The late phase's pyramid test, one thread per object slot, in its own
// dispatch before `cull_instances`: it runs no barrier and holds the only
// texture fetches of the cull pass. (llvmpipe compiles a compute shader
// with barriers as a coroutine; texture fetches inlined into one made GL's
// compile of the cull shader take minutes.)
@compute @workgroup_size(256)
fn test_occlusion(
    @builtin(workgroup_id) workgroup: vec3<u32>,
    @builtin(num_workgroups) workgroups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = flat_index(workgroup, workgroups, local);
    let view = cull_phase.view;
    var clip_from_world = frame.clip_from_world;
    if view > 0u {
        clip_from_world = shadows.shadow_from_world[min(view - 1u, MAX_CASCADES - 1u)];
    }
    if i < min(frame.instance_count, arrayLength(&instance_bounds)) {
        write_bit(bit_words(), i, !sphere_occluded(clip_from_world, instance_bounds[i]));
    }
}

// Whether the camera keeps instance `i` in this phase, given that it is
// drawable and inside the frustum (`in_frustum`); the late phase also
// writes its visibility bit. `hidden`: culled by the pyramid (late phase).
fn camera_keeps(i: u32, in_frustum: bool, pipeline: u32, hidden: ptr<function, bool>) -> bool {
    let phase = cull_phase.phase;
    if phase == CULL_PHASE_FRUSTUM {
        return in_frustum;
    }
    let drawn_early = in_frustum && pipeline != BUCKET_BLEND && visibility_bit(i);
    if phase == CULL_PHASE_EARLY {
        return drawn_early;
    }
    let seen = in_frustum && unoccluded_bit(i);
    set_visibility_bit(i, seen);
    *hidden = in_frustum && !seen && !drawn_early;
    return seen && !drawn_early;
}

// Whether cascade view `view` (1 + c) keeps caster `i` in this phase,
// given that it lies in the cascade's box without its near plane
// (`in_view`), while the cascades are culled by occlusion: early, what it
// kept last frame (a hint: the cascade may have moved since); late (its
// own dispatch, against the pyramid of its early depth), the rest not
// hidden, writing its bit "in the box, not hidden". Every caster that
// could write a nearer depth than the early phase left is drawn in one
// phase or the other, so the layer ends exactly as frustum culling alone
// leaves it. `hidden`: culled by the pyramid (late phase).
fn cascade_keeps(i: u32, view: u32, in_view: bool, hidden: ptr<function, bool>) -> bool {
    let phase = cull_phase.phase;
    if phase == CULL_PHASE_FRUSTUM {
        return in_view;
    }
    let bits = view_bits(view);
    let drawn_early = in_view && read_bit(bits, i);
    if phase == CULL_PHASE_EARLY {
        return drawn_early;
    }
    let seen = in_view && unoccluded_bit(i);
    write_bit(bits, i, seen);
    *hidden = in_view && !seen && !drawn_early;
    return seen && !drawn_early;
}
#endif
