//! Structure-aware fuzzing of the meshoptimizer decoding behind
//! `EXT_meshopt_compression` and `KHR_meshopt_compression`
//! (`unbound::loaders::gltf::decode_meshopt_view`: what the loader does
//! with one compressed buffer view once its stream is found). The input is
//! a 7-byte header and the stream:
//!
//! | byte | meaning |
//! | --- | --- |
//! | 0 | mode: `ATTRIBUTES`, `TRIANGLES`, `INDICES` or an unknown one (mod 4) |
//! | 1 | filter: `NONE`, `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL`, `COLOR` or none given (mod 6) |
//! | 2 | bit 0: the KHR extension (else EXT, which has no `COLOR`) |
//! | 3 | `byteStride` (0-255) |
//! | 4-5 | `count`, little-endian |
//! | 6 | the view's length: `count` x `byteStride` plus this byte mod 16, or one byte short if it is 255 |
//!
//! so layouts the decoders cannot handle, views too short for their
//! output and streams shorter or longer than their counts all come up.
//! Decoded output is at most 65535 x 255 bytes. A view that decodes must
//! be exactly the view's length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};
use unbound::loaders::gltf::decode_meshopt_view;

const MODES: [&str; 4] = ["ATTRIBUTES", "TRIANGLES", "INDICES", "POINTS"];
const FILTERS: [&str; 5] = ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"];

fuzz_target!(|data: &[u8]| {
    let Some((header, stream)) = data.split_first_chunk::<7>() else {
        return;
    };
    let stride = usize::from(header[3]);
    let count = usize::from(u16::from_le_bytes([header[4], header[5]]));
    let view_length = match header[6] {
        255 => (count * stride).saturating_sub(1),
        slack => count * stride + usize::from(slack % 16),
    };
    let mut object = Map::new();
    object.insert("buffer".into(), 0.into());
    object.insert("byteLength".into(), stream.len().into());
    object.insert("byteStride".into(), stride.into());
    object.insert("count".into(), count.into());
    object.insert("mode".into(), MODES[usize::from(header[0]) % 4].into());
    if let Some(filter) = FILTERS.get(usize::from(header[1]) % 6) {
        object.insert("filter".into(), (*filter).into());
    }
    let khr = header[2] & 1 == 1;
    if let Ok(bytes) = decode_meshopt_view(&Value::Object(object), khr, view_length, stream) {
        assert_eq!(bytes.len(), view_length);
    }
});
