//! Renderers with ray queries for the ray-tracing tests
//! (`tests/ray_queries.rs`, `tests/ray_traced.rs`).

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
