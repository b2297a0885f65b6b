//! An instanced forest as a GLB file: one small tree mesh (a six-sided
//! cone), placed by one node's `EXT_mesh_gpu_instancing` once per tree,
//! with translations as floats, rotations as normalised shorts and scales
//! as normalised unsigned shorts (`KHR_mesh_quantization`'s encodings).
//! The transforms the file encodes, decoded as the extension says, come
//! with it: the reference a loader's objects are compared with.

use glam::{Mat4, Quat, Vec3};

use crate::Rng;

/// A generated forest file and what it places.
#[derive(Clone, Debug)]
pub struct Forest {
    /// The GLB file's bytes.
    pub glb: Vec<u8>,
    /// The node's own transform (applied on top of every instance).
    pub node: Mat4,
    /// Each instance's `T × R × S`, from the values as stored (quantized
    /// ones decoded), in instance order.
    pub instances: Vec<Mat4>,
}

/// Sides of the tree's cone.
const SIDES: u32 = 6;

/// The tree: apex at (0, 2, 0), base ring of radius 0.6 at y = 0, and the
/// base's centre; 8 vertices, 12 triangles.
fn tree() -> (Vec<[f32; 3]>, Vec<u16>) {
    let mut positions = vec![[0.0, 2.0, 0.0], [0.0, 0.0, 0.0]];
    for i in 0..SIDES {
        let angle = i as f32 * std::f32::consts::TAU / SIDES as f32;
        positions.push([0.6 * angle.cos(), 0.0, -0.6 * angle.sin()]);
    }
    let mut indices = Vec::new();
    for i in 0..SIDES as u16 {
        let (a, b) = (2 + i, 2 + (i + 1) % SIDES as u16);
        indices.extend([0, a, b, 1, b, a]);
    }
    (positions, indices)
}

/// Appends `bytes`' little-endian encodings to `out`.
fn put<const N: usize>(out: &mut Vec<u8>, values: impl IntoIterator<Item = [u8; N]>) {
    for v in values {
        out.extend(v);
    }
}

/// `count` trees on a `side` × `side` square of the XZ plane centred on the
/// origin (jittered grid cells), each turned about Y and tilted a little,
/// scaled 0.4 to 1 per axis; the node is translated by (10, 0, 0).
pub fn forest(count: u32, side: f32, seed: u64) -> Forest {
    let mut rng = Rng::new(seed);
    let columns = (f64::from(count).sqrt().ceil() as u32).max(1);
    let cell = side / columns as f32;
    let (mut translations, mut rotations, mut scales) = (Vec::new(), Vec::new(), Vec::new());
    let mut instances = Vec::with_capacity(count as usize);
    for i in 0..count {
        let (row, column) = (i / columns, i % columns);
        let t = Vec3::new(
            -side / 2.0 + (column as f32 + rng.unit()) * cell,
            rng.range(-0.2, 0.2),
            -side / 2.0 + (row as f32 + rng.unit()) * cell,
        );
        let turn = Quat::from_rotation_y(rng.range(0.0, std::f32::consts::TAU))
            * Quat::from_rotation_x(rng.range(-0.2, 0.2));
        let q = turn
            .to_array()
            .map(|c| (c.clamp(-1.0, 1.0) * 32767.0).round() as i16);
        let s = [(); 3].map(|()| (rng.range(0.4, 1.0) * 65535.0).round() as u16);
        // Decoded as the extension says: c / 32767 (at least -1), c / 65535.
        let r = Quat::from_array(q.map(|c| (f32::from(c) / 32767.0).max(-1.0))).normalize();
        let scale = Vec3::from_array(s.map(|c| f32::from(c) / 65535.0));
        instances.push(Mat4::from_scale_rotation_translation(scale, r, t));
        put(&mut translations, t.to_array().map(f32::to_le_bytes));
        put(&mut rotations, q.map(i16::to_le_bytes));
        // Padded to 8 bytes: a view with a stride.
        put(&mut scales, s.map(u16::to_le_bytes));
        scales.extend([0, 0]);
    }
    let (positions, indices) = tree();
    let mut bin = Vec::new();
    put(
        &mut bin,
        positions.iter().flatten().map(|v| v.to_le_bytes()),
    );
    let index_offset = bin.len();
    put(&mut bin, indices.iter().map(|i| i.to_le_bytes()));
    bin.resize(bin.len().next_multiple_of(4), 0);
    let translation_offset = bin.len();
    bin.extend(&translations);
    let rotation_offset = bin.len();
    bin.extend(&rotations);
    let scale_offset = bin.len();
    bin.extend(&scales);
    let node = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},
"extensionsUsed":["EXT_mesh_gpu_instancing","KHR_mesh_quantization"],
"extensionsRequired":["EXT_mesh_gpu_instancing","KHR_mesh_quantization"],
"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0,"translation":[10,0,0],"extensions":{{"EXT_mesh_gpu_instancing":{{"attributes":{{"TRANSLATION":2,"ROTATION":3,"SCALE":4}}}}}}}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"buffers":[{{"byteLength":{len}}}],
"bufferViews":[
{{"buffer":0,"byteOffset":0,"byteLength":{index_offset}}},
{{"buffer":0,"byteOffset":{index_offset},"byteLength":{index_bytes}}},
{{"buffer":0,"byteOffset":{translation_offset},"byteLength":{translation_bytes}}},
{{"buffer":0,"byteOffset":{rotation_offset},"byteLength":{rotation_bytes}}},
{{"buffer":0,"byteOffset":{scale_offset},"byteLength":{scale_bytes},"byteStride":8}}],
"accessors":[
{{"bufferView":0,"componentType":5126,"count":{vertices},"type":"VEC3","min":[-0.6,0,-0.6],"max":[0.6,2,0.6]}},
{{"bufferView":1,"componentType":5123,"count":{index_count},"type":"SCALAR"}},
{{"bufferView":2,"componentType":5126,"count":{count},"type":"VEC3"}},
{{"bufferView":3,"componentType":5122,"normalized":true,"count":{count},"type":"VEC4"}},
{{"bufferView":4,"componentType":5123,"normalized":true,"count":{count},"type":"VEC3"}}]}}"#,
        len = bin.len(),
        index_bytes = indices.len() * 2,
        translation_bytes = translations.len(),
        rotation_bytes = rotations.len(),
        scale_bytes = scales.len(),
        vertices = positions.len(),
        index_count = indices.len(),
    );
    Forest {
        glb: glb(json.as_bytes(), &bin),
        node,
        instances,
    }
}

/// A GLB container: the JSON chunk padded with spaces, the BIN chunk with
/// zeros, each to 4 bytes.
fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| n.next_multiple_of(4);
    let total = 12 + 8 + pad(json.len()) + 8 + pad(bin.len());
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((pad(json.len()) as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(json);
    out.resize(out.len().next_multiple_of(4), b' ');
    out.extend((pad(bin.len()) as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out.resize(total, 0);
    out
}
