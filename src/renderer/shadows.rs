//! The sun's shadows: cascaded shadow maps (`crate::shadows`,
//! `passes::shadow`) or shadow rays (`passes::rays`), chosen at run time;
//! and the spot lights' shadow maps (`crate::shadows::spots`). The sun is
//! [`crate::Lighting`]'s built-in one, or the directional light named by
//! [`Renderer::set_sun_light`] (see [`crate::lights`]).

use crate::camera::Lighting;
use crate::errors::{Error, RenderError};
use crate::handles::LightHandle;
use crate::passes::shadow::ShadowPass;
use crate::renderer::Renderer;
use crate::shadows::spots::SpotShadow;
use crate::shadows::{Cascade, ShadowError, ShadowSettings};

/// The sun's and the spot lights' shadows.
#[derive(Debug)]
pub(super) struct ShadowState {
    pub settings: ShadowSettings,
    /// The cascades the last recorded frame used (empty with shadows off).
    pub cascades: Vec<Cascade>,
    /// The spot shadows the last recorded frame used, by shadow index
    /// (empty with shadows off).
    pub spots: Vec<SpotShadow>,
    /// The layout of the shading's shadow group (the draw pass's group 2).
    pub layout: wgpu::BindGroupLayout,
    /// Built when shadows are first on.
    pub pass: Option<ShadowPass>,
}

impl Renderer {
    /// Sets the sun's and the spot lights' shadows for the next frames (on
    /// or off, cascades, resolution, splits, bias, shadowed spots; see
    /// [`crate::shadows`]). Refuses a cascade count of 0 or above
    /// [`crate::shadows::MAX_CASCADES`], more shadowed spots than
    /// [`crate::shadows::MAX_SPOT_SHADOWS`], more layers than the device's
    /// `max_texture_array_layers`, a resolution of 0 or beyond the device's
    /// `max_texture_dimension_2d`, NaN or out-of-range numbers, a bias of
    /// more texels than the resolution and, with shadows on, cascades that
    /// the camera in use makes too large for `f32`
    /// ([`crate::shadows::check_cascades`]; a camera set afterwards is
    /// checked by each frame), keeping the settings in use.
    pub fn set_shadows(&mut self, settings: &ShadowSettings) -> Result<(), Error> {
        settings.validate(&self.device.limits())?;
        self.check_cascades(settings)?;
        self.shadows.settings = *settings;
        self.tables.lights.set_shadowed_spots(settings.spot_lights);
        Ok(())
    }

    /// Checks the cascades `settings` give with the camera and sun in use,
    /// when they are drawn (shadows on, without ray-query shadows).
    pub(super) fn check_cascades(&self, settings: &ShadowSettings) -> Result<(), ShadowError> {
        if !settings.enabled || self.ray_query_shadows {
            return Ok(());
        }
        let sun = self.sun().direction_to_light;
        let cascades = crate::shadows::cascades(&self.camera, sun, settings);
        crate::shadows::check_cascades(&cascades, settings)
    }

    /// The shadow settings in use.
    pub fn shadows(&self) -> &ShadowSettings {
        &self.shadows.settings
    }

    /// The shadow cascades the last recorded frame culled and drew (empty
    /// with shadows off): their projections, splits and texel sizes.
    pub fn shadow_cascades(&self) -> &[Cascade] {
        &self.shadows.cascades
    }

    /// The spot shadows the last recorded frame culled and drew, by shadow
    /// index (the light's `GpuLight::shadow`; layer: the cascade count
    /// plus it); empty with shadows off.
    pub fn spot_shadows(&self) -> &[SpotShadow] {
        &self.shadows.spots
    }

    /// The shadow map the last recorded frame drew (one `Depth32Float`
    /// layer per cascade, then one per shadowed spot of
    /// [`ShadowSettings::spot_lights`]; see
    /// [`ShadowSettings::map_layers`]), once shadows have been on.
    pub fn shadow_map_texture(&self) -> Option<&wgpu::Texture> {
        self.shadows.pass.as_ref().and_then(ShadowPass::texture)
    }

    /// Turns ray-query sun shadows on or off for the next frames: each lit
    /// fragment facing the sun traces a ray towards it through the TLAS
    /// (`wgsl/ray_hit.wgsl`), and the sun does not reach it where an opaque
    /// or alpha-masked object (outside its holes) lies in the way; blended
    /// objects cast no shadow, image-based light is not shadowed. Refused
    /// ([`RenderError::RayQueriesOff`]) by a renderer without
    /// [`RendererConfig::ray_queries`](crate::RendererConfig::ray_queries); off by default. Frames without them
    /// draw with a shader that has none of their code. While on they
    /// replace the shadow maps: no cascade or spot shadow is culled or
    /// drawn, whatever [`Self::set_shadows`] says; spot lights are then
    /// unshadowed.
    pub fn set_ray_query_shadows(&mut self, enabled: bool) -> Result<(), Error> {
        if enabled && self.rays.is_none() {
            return Err(RenderError::RayQueriesOff {
                what: "ray-query shadows",
            }
            .into());
        }
        self.ray_query_shadows = enabled;
        Ok(())
    }

    /// Whether ray-query sun shadows are on.
    pub fn ray_query_shadows(&self) -> bool {
        self.ray_query_shadows
    }

    /// Names the directional light `handle` the sun for the next frames,
    /// or none (`None`): the cascades follow it and the sun term shades it
    /// in place of [`Lighting`]'s `direction_to_light` and `light_color`,
    /// and it is not shaded again as a table light (see [`crate::lights`]).
    /// The glTF loader names a file's brightest directional light when no
    /// light is the sun yet. Refuses a stale or foreign handle and a light
    /// that is not directional
    /// ([`LightError::NotDirectional`](crate::LightError::NotDirectional)),
    /// keeping the sun in use.
    pub fn set_sun_light(&mut self, handle: Option<LightHandle>) -> Result<(), Error> {
        self.tables.lights.set_sun(handle)?;
        self.scene_changes += 1;
        Ok(())
    }

    /// The light named the sun, if one is; `None`: the built-in sun.
    pub fn sun_light(&self) -> Option<LightHandle> {
        self.tables.lights.sun().map(|(handle, _)| handle)
    }

    /// The lighting the frame shades with: [`Self::lighting`], its sun
    /// replaced by the light named the sun if one is.
    pub fn sun(&self) -> Lighting {
        let Some((_, light)) = self.tables.lights.sun() else {
            return self.lighting;
        };
        Lighting {
            direction_to_light: -glam::Vec3::from_array(light.direction),
            light_color: glam::Vec3::from_array(light.intensity),
            ..self.lighting
        }
    }
}
