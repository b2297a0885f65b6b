//! A small glTF scene in physical units (`tests/sun.rs`, `tests/exposure.rs`):
//! a ground quad of 80 × 80 m at y = 0 (past the view's edges, as the
//! ground of Bevy's lighting example), a 3 × 3 m roof quad floating at
//! y = 1.5 m above it, and a `KHR_lights_punctual` directional sun of
//! 2,049 lux (the illuminance of Bevy's lighting example) shining from
//! [`super::shadow_scene::sun_direction`], plus a dim directional fill light
//! of 10 lux. Written to a file under the test output folder, its buffer a
//! data URI.

use glam::{Quat, Vec3};

use super::base64;
use super::shadow_scene::sun_direction;

/// The sun's illuminance (lux).
pub const SUN_LUX: f32 = 2049.0;
/// The fill light's illuminance (lux).
pub const FILL_LUX: f32 = 10.0;
/// Where the roof floats (its centre) and its side.
pub const ROOF_CENTER: Vec3 = Vec3::new(0.0, 1.5, 0.0);
pub const ROOF_SIDE: f32 = 3.0;

/// The glTF JSON: meshes 0 (ground, grey) and 1 (roof, red) share one
/// quad's accessors; light 0 is the fill, light 1 the sun (so the
/// brightest is not simply the first).
pub fn sun_gltf() -> String {
    let mut bytes = Vec::new();
    // A quad in the XZ plane facing +Y: positions, normals, indices.
    for p in [
        [-0.5, 0.0, -0.5],
        [0.5, 0.0, -0.5],
        [0.5, 0.0, 0.5],
        [-0.5, 0.0, 0.5],
    ] {
        bytes.extend(p.iter().flat_map(|v: &f32| v.to_le_bytes()));
    }
    for _ in 0..4 {
        bytes.extend([0.0_f32, 1.0, 0.0].iter().flat_map(|v| v.to_le_bytes()));
    }
    for i in [0_u16, 2, 1, 0, 3, 2] {
        bytes.extend(i.to_le_bytes());
    }
    let turn = |direction: Vec3| Quat::from_rotation_arc(Vec3::NEG_Z, direction.normalize());
    let sun = turn(-sun_direction());
    let fill = turn(Vec3::new(0.5, -0.3, 0.4));
    let material = |color: [f32; 3]| {
        format!(
            r#"{{"pbrMetallicRoughness": {{"baseColorFactor": [{}, {}, {}, 1], "metallicFactor": 0, "roughnessFactor": 0.8}}}}"#,
            color[0], color[1], color[2]
        )
    };
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "extensionsUsed": ["KHR_lights_punctual"],
  "extensions": {{"KHR_lights_punctual": {{"lights": [
    {{"type": "directional", "intensity": {FILL_LUX}, "name": "fill"}},
    {{"type": "directional", "intensity": {SUN_LUX}, "color": [1, 1, 1], "name": "sun"}}
  ]}}}},
  "scene": 0,
  "scenes": [{{"nodes": [0, 1, 2, 3]}}],
  "nodes": [
    {{"mesh": 0, "scale": [80, 1, 80]}},
    {{"mesh": 1, "translation": [{rx}, {ry}, {rz}], "scale": [{ROOF_SIDE}, 1, {ROOF_SIDE}]}},
    {{"rotation": [{fx}, {fy}, {fz}, {fw}], "extensions": {{"KHR_lights_punctual": {{"light": 0}}}}}},
    {{"rotation": [{sx}, {sy}, {sz}, {sw}], "extensions": {{"KHR_lights_punctual": {{"light": 1}}}}}}
  ],
  "meshes": [
    {{"primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1}}, "indices": 2, "material": 0}}]}},
    {{"primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1}}, "indices": 2, "material": 1}}]}}
  ],
  "materials": [{ground}, {roof}],
  "buffers": [{{"byteLength": {length}, "uri": "data:application/octet-stream;base64,{data}"}}],
  "bufferViews": [
    {{"buffer": 0, "byteOffset": 0, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 48, "byteLength": 48}},
    {{"buffer": 0, "byteOffset": 96, "byteLength": 12}}
  ],
  "accessors": [
    {{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [-0.5, 0, -0.5], "max": [0.5, 0, 0.5]}},
    {{"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"}},
    {{"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}}
  ]
}}"#,
        rx = ROOF_CENTER.x,
        ry = ROOF_CENTER.y,
        rz = ROOF_CENTER.z,
        fx = fill.x,
        fy = fill.y,
        fz = fill.z,
        fw = fill.w,
        sx = sun.x,
        sy = sun.y,
        sz = sun.z,
        sw = sun.w,
        ground = material([0.8, 0.8, 0.75]),
        roof = material([0.8, 0.2, 0.15]),
        length = bytes.len(),
        data = base64(&bytes),
    )
}

/// [`sun_gltf`] written to `name` under the system's temporary folder
/// (unique per process), and its path.
pub fn sun_gltf_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("unbound-sun-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, sun_gltf()).unwrap();
    path
}

/// The pixel of a [`super::shadow_scene::SIZE`]² image of
/// [`super::shadow_scene::camera`] that shows world point `point`.
pub fn pixel_of(point: Vec3) -> (u32, u32) {
    use super::shadow_scene::{SIZE, camera};
    let clip = camera().clip_from_world() * point.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let x = (ndc.x * 0.5 + 0.5) * SIZE as f32;
    let y = (0.5 - ndc.y * 0.5) * SIZE as f32;
    (x as u32, y as u32)
}

/// Where the roof's centre casts its shadow on the ground (along the sun).
pub fn roof_shadow_centre() -> Vec3 {
    let toward_sun = sun_direction();
    ROOF_CENTER - toward_sun * (ROOF_CENTER.y / toward_sun.y)
}
