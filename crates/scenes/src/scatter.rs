//! The one scatter generator: objects placed uniformly in a cube, turned
//! and scaled at random, each with a random mesh and material. The demo
//! scene and the scattered benchmark scenes differ only in its parameters.

use glam::{Mat4, Quat, Vec3};

use crate::Rng;

/// Where and how objects are scattered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScatterBox {
    /// Half the edge of the cube, centred on the origin, that positions fill.
    pub half_extent: f32,
    /// Uniform scale range `[low, high)`.
    pub scale: (f32, f32),
}

/// One scattered object.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scatter {
    /// Placement.
    pub world_from_object: Mat4,
    /// Index of its mesh, below the mesh count given.
    pub mesh: u32,
    /// Index of its material, below the material count given.
    pub material: u32,
}

impl ScatterBox {
    /// `count` objects in a cube whose volume grows with the count: half
    /// edge `cbrt(count) * spacing`.
    pub fn for_count(count: u32, spacing: f32, scale: (f32, f32)) -> Self {
        Self {
            half_extent: (count as f32).cbrt() * spacing,
            scale,
        }
    }

    /// The next object from `rng`: position, rotation (yaw, pitch), scale,
    /// mesh, material, drawn in that order.
    pub fn next(&self, rng: &mut Rng, meshes: u32, materials: u32) -> Scatter {
        let h = self.half_extent;
        let position = Vec3::new(rng.range(-h, h), rng.range(-h, h), rng.range(-h, h));
        let rotation = Quat::from_euler(
            glam::EulerRot::YXZ,
            rng.range(0.0, 6.3),
            rng.range(0.0, 6.3),
            0.0,
        );
        let scale = rng.range(self.scale.0, self.scale.1);
        Scatter {
            world_from_object: Mat4::from_scale_rotation_translation(
                Vec3::splat(scale),
                rotation,
                position,
            ),
            mesh: rng.below(meshes),
            material: rng.below(materials),
        }
    }
}
