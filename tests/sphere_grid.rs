//! The sphere grid (metallic down the rows, roughness across the columns,
//! under the procedural sky and the sun; `tests/common/sphere_grid.rs`)
//! matches its reference image on tier A, tier B renders it identically, and
//! the bind-per-draw baseline matches. Tier C is checked in `tests/tiers.rs`.

mod common;

use common::sphere_grid::*;
use common::*;
use unbound::Tier;

/// Tolerance against the reference: channel difference <= 2 on all but
/// 0.2% of pixels (lavapipe renders it identically run to run; the margin
/// is for other LLVM versions).
#[test]
fn the_sphere_grid_matches_its_reference_and_tier_b_and_the_baseline_match_tier_a() {
    let gpu = Gpu::new(&Gpu::default_capacities());
    let (a, tier_a) = render_sphere_grid(&gpu, None);
    assert_eq!(tier_a, Tier::A);
    save_output("sphere_grid_a", &a);
    compare_with_reference(&gpu, "sphere_grid", &a, 2, 0.002);

    // Every sphere is drawn: its centre is not the background.
    let background = a.get_pixel(0, 0).0;
    for row in 0..METALLIC.len() as u32 {
        for column in 0..ROUGHNESS.len() as u32 {
            let centre = a
                .get_pixel(column * CELL + CELL / 2, row * CELL + CELL / 2)
                .0;
            assert_ne!(centre, background, "sphere ({row}, {column}) missing");
        }
    }

    let (b, tier_b) = render_sphere_grid(&gpu, Some(Tier::B));
    assert_eq!(tier_b, Tier::B);
    assert_eq!(
        mismatched_pixels(&a, &b, 0),
        0,
        "tier B differs from tier A"
    );

    let classic = render_sphere_grid_baseline(&gpu);
    save_output("sphere_grid_baseline", &classic);
    let mismatched = mismatched_pixels(&a, &classic, 2);
    let worst = largest_difference(&a, &classic);
    assert!(
        mismatched <= (a.width() * a.height()) as usize / 1000,
        "baseline: {mismatched} pixels differ by more than 2; largest difference {worst}"
    );
    gpu.finish();
}
