//! `KHR_lights_punctual`: the lights nodes carry, placed by the node
//! hierarchy (at the node's origin, shining along its -Z; scale changes
//! neither the cone nor the intensity). A light the renderer would refuse
//! ([`Light::validate`]: a negative intensity or colour, a range that is
//! not positive, a cone whose inner angle exceeds its outer one or whose
//! outer angle exceeds π/2, a spot or directional light whose node's
//! transform collapses its -Z) is an error naming the light and the node,
//! like a material with factors out of range: lights are few, and a wrong
//! one would light the scene wrongly without a word.
//!
//! A file's sun: when the renderer has no light named the sun yet
//! ([`crate::Renderer::sun_light`]), loading names the file's brightest
//! directional light (by the luminance of colour × lux) the sun, so its
//! cascades and shading replace the built-in sun's
//! ([`crate::Renderer::set_sun_light`]; [`crate::lights`] says how).

use glam::{Mat4, Vec3};

use super::GltfError;
use crate::lights::{Light, LightKind};
use crate::output::LUMINANCE_WEIGHTS;

/// One `KHR_lights_punctual` light placed by a node of the default scene.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfLight {
    /// glTF light index.
    pub light: usize,
    /// glTF node index.
    pub node: usize,
    /// The light's name, if any.
    pub name: Option<String>,
    /// The light in the scene's space: at the node's origin, shining along
    /// its -Z (checked by [`Light::validate`]).
    pub scene_light: Light,
}

impl GltfLight {
    /// The light placed by `world_from_scene`.
    pub fn world_light(&self, world_from_scene: &Mat4) -> Light {
        self.scene_light.transformed(world_from_scene)
    }
}

/// The light `node` carries, placed by `scene_from_node`, checked.
pub(super) fn node_light(
    path: &std::path::Path,
    node: &gltf::Node<'_>,
    scene_from_node: &Mat4,
) -> Option<Result<GltfLight, GltfError>> {
    let light = node.light()?;
    let kind = match light.kind() {
        gltf::khr_lights_punctual::Kind::Directional => LightKind::Directional,
        gltf::khr_lights_punctual::Kind::Point => LightKind::Point,
        gltf::khr_lights_punctual::Kind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        } => LightKind::Spot {
            inner_cone_angle,
            outer_cone_angle,
        },
    };
    let local = Light {
        kind,
        position: Vec3::ZERO,
        direction: Vec3::NEG_Z,
        color: Vec3::from_array(light.color()),
        intensity: light.intensity(),
        range: light.range(),
        // glTF has no such field: every spot may cast shadows.
        casts_shadows: true,
    };
    let placed = local.transformed(scene_from_node);
    Some(match placed.validate() {
        Ok(()) => Ok(GltfLight {
            light: light.index(),
            node: node.index(),
            name: light.name().map(str::to_owned),
            scene_light: placed,
        }),
        Err(source) => Err(GltfError::Light {
            path: path.to_owned(),
            light: light.index(),
            node: node.index(),
            source,
        }),
    })
}

/// The index among `lights` of the brightest directional light that casts
/// shadows (by the Rec. 709 luminance of colour × illuminance; the first of
/// equals), if any: the file's sun.
pub(super) fn brightest_directional(lights: &[GltfLight]) -> Option<usize> {
    let luminance = |light: &Light| light.color.dot(LUMINANCE_WEIGHTS) * light.intensity;
    lights
        .iter()
        .enumerate()
        .filter(|(_, l)| l.scene_light.kind == LightKind::Directional)
        .filter(|(_, l)| l.scene_light.casts_shadows)
        .fold(None, |best: Option<(usize, f32)>, (index, l)| {
            let value = luminance(&l.scene_light);
            match best {
                Some((_, most)) if most >= value => best,
                _ => Some((index, value)),
            }
        })
        .map(|(index, _)| index)
}
