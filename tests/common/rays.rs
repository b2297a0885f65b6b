//! Renderers with ray queries for the ray-tracing tests
//! (`tests/ray_queries.rs`, `tests/ray_traced.rs`), and the comparisons
//! of traced and rasterised frames of posed objects (`tests/ray_animation.rs`,
//! `tests/animation_morph.rs`).

use unbound::{Capacities, RendererConfig};

/// Small capacities: the tests add a few meshes and objects.
pub fn ray_capacities() -> Capacities {
    Capacities {
        objects: 1 << 12,
        meshes: 256,
        vertices: 1 << 16,
        indices: 1 << 18,
        ..Capacities::default()
    }
}

pub fn ray_config(capacities: Capacities) -> RendererConfig {
    RendererConfig {
        capacities,
        ray_queries: true,
        ..RendererConfig::default()
    }
}

/// Renders `view` of `renderer` into an id target of `size` × `size`.
pub fn id_view(
    gpu: &super::Gpu,
    renderer: &mut unbound::Renderer,
    view: unbound::DebugView,
    size: u32,
) -> image::RgbaImage {
    renderer
        .set_debug(&unbound::DebugOptions {
            view,
            ..Default::default()
        })
        .unwrap();
    let target = super::Target::with_format(gpu, size, size, unbound::ID_TARGET_FORMAT);
    let image = target.render(gpu, renderer).0;
    renderer
        .set_debug(&unbound::DebugOptions::default())
        .unwrap();
    image
}

/// An id image's ids, one per pixel: 0 where none, else the id plus 1.
pub fn decoded_ids(image: &image::RgbaImage) -> Vec<u32> {
    image
        .pixels()
        .map(|p| unbound::debug::decode_id(p.0).map_or(0, |id| id + 1))
        .collect()
}

/// The pixels (row-major indices into `values`, a square of side `size`)
/// whose 8 neighbours show the same value as they do.
pub fn interior_pixels<T: PartialEq>(values: &[T], size: usize) -> Vec<usize> {
    let mut inside = Vec::new();
    for y in 1..size - 1 {
        for x in 1..size - 1 {
            let at = y * size + x;
            let same = (y - 1..=y + 1)
                .all(|ny| (x - 1..=x + 1).all(|nx| values[ny * size + nx] == values[at]));
            if same {
                inside.push(at);
            }
        }
    }
    inside
}

/// The drawn and traced material views of a posed frame against the
/// drawn view of the bind pose (`bind`, decoded ids): interior pixels of
/// the drawn view, how many of them the traced view equals, and how many
/// moved from the bind pose (the rule of `tests/ray_animation.rs`).
pub fn material_agreement(bind: &[u32], drawn: &[u32], traced: &[u32], size: usize) -> [usize; 3] {
    let inside = interior_pixels(drawn, size);
    let equal = inside.iter().filter(|&&at| traced[at] == drawn[at]).count();
    let moved = inside.iter().filter(|&&at| bind[at] != drawn[at]).count();
    [inside.len(), equal, moved]
}

/// How a ground pixel shows: `Some(true)` in shadow (much darker than
/// without shadows), `Some(false)` lit, `None` neither (the rule of
/// `tests/ray_traced.rs`).
pub fn shown_in_shadow(unshadowed: &image::Rgba<u8>, shadowed: &image::Rgba<u8>) -> Option<bool> {
    let darker = i32::from(unshadowed.0[1]) - i32::from(shadowed.0[1]);
    match darker {
        d if d.abs() <= 2 => Some(false),
        d if d >= 40 => Some(true),
        _ => None,
    }
}

/// A square frame of side `size` without shadows, with ray-query shadows
/// and with shadow maps (`maps`), and its material ids.
pub struct ShadowFrames {
    pub size: u32,
    pub ids: Vec<u32>,
    pub unshadowed: image::RgbaImage,
    pub rays: image::RgbaImage,
    pub maps: image::RgbaImage,
}

impl ShadowFrames {
    /// Renders the three frames (shadows off before and after).
    pub fn render(
        gpu: &super::Gpu,
        renderer: &mut unbound::Renderer,
        size: u32,
        maps: &unbound::ShadowSettings,
    ) -> Self {
        let off = unbound::ShadowSettings::default();
        renderer.set_shadows(&off).unwrap();
        let target = super::Target::new(gpu, size, size);
        let ids = decoded_ids(&id_view(
            gpu,
            renderer,
            unbound::DebugView::MaterialIndex,
            size,
        ));
        let unshadowed = target.render(gpu, renderer).0;
        renderer.set_ray_query_shadows(true).unwrap();
        let rays = target.render(gpu, renderer).0;
        renderer.set_ray_query_shadows(false).unwrap();
        renderer.set_shadows(maps).unwrap();
        let shadow_maps = target.render(gpu, renderer).0;
        renderer.set_shadows(&off).unwrap();
        Self {
            size,
            ids,
            unshadowed,
            rays,
            maps: shadow_maps,
        }
    }
}

/// Ray-query shadows against shadow maps on the ground (the material
/// shown most) of a posed frame, away from shadow edges and from what
/// stands on it in either pose.
#[derive(Debug)]
pub struct ShadowAgreement {
    /// Ground pixels compared.
    pub pixels: usize,
    /// Of which in the maps' shadow.
    pub in_shadow: usize,
    /// Of which the rays shade as the maps do.
    pub agreeing: usize,
    /// Of which the maps shade otherwise in the bind pose.
    pub moved: usize,
}

impl ShadowAgreement {
    pub fn of(bind: &ShadowFrames, posed: &ShadowFrames) -> Self {
        let size = posed.size;
        let count = |id: u32| posed.ids.iter().filter(|&&i| i == id).count();
        let shown: std::collections::BTreeSet<u32> = posed.ids.iter().copied().collect();
        let ground = shown
            .into_iter()
            .filter(|&id| id != 0)
            .max_by_key(|&id| count(id))
            .unwrap();
        let maps: Vec<Option<bool>> = posed
            .unshadowed
            .pixels()
            .zip(posed.maps.pixels())
            .map(|(a, b)| shown_in_shadow(a, b))
            .collect();
        let decided: Vec<Option<bool>> = maps
            .iter()
            .zip(posed.ids.iter().zip(&bind.ids))
            .map(|(&m, (&a, &b))| if a == ground && b == ground { m } else { None })
            .collect();
        let pixels: Vec<usize> = interior_pixels(&decided, size as usize)
            .into_iter()
            .filter(|&at| decided[at].is_some())
            .collect();
        let pixel = |image: &image::RgbaImage, at: usize| {
            *image.get_pixel(at as u32 % size, at as u32 / size)
        };
        let in_shadow = pixels.iter().filter(|&&at| maps[at] == Some(true)).count();
        let agreeing = pixels
            .iter()
            .filter(|&&at| {
                shown_in_shadow(&pixel(&posed.unshadowed, at), &pixel(&posed.rays, at)) == maps[at]
            })
            .count();
        let moved = pixels
            .iter()
            .filter(|&&at| {
                shown_in_shadow(&pixel(&bind.unshadowed, at), &pixel(&bind.maps, at)) != maps[at]
            })
            .count();
        Self {
            pixels: pixels.len(),
            in_shadow,
            agreeing,
            moved,
        }
    }
}
