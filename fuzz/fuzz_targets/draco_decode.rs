//! Decoding `KHR_draco_mesh_compression` streams
//! (`unbound::loaders::gltf::decode_draco_stream`, built with the `draco`
//! feature: the header checks, the decoder and the point merging the loader
//! runs on one primitive's stream). The input is the primitive's index
//! count and point count (each a little-endian `u32`) and the stream.
//! Counts above 2^20 are skipped: the loader charges them against its
//! limits before decoding, so a stream is never decoded for more.
//!
//! `draco-oxide-decoder` panics on some hostile streams and the loader
//! contains those panics with `catch_unwind`. libFuzzer's panic hook would
//! abort on them first, so this target installs a silent hook: a panic the
//! loader contains is an error like any other, while a panic that escapes
//! the loader is printed and aborts, as in the other targets. A stream that
//! decodes must give the declared number of triangles (whether they name
//! points in range is the mesh validation's check, after the accessors are
//! read, and is not fuzzed here).
#![no_main]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use unbound::loaders::gltf::decode_draco_stream;

/// The largest index and point count decoded here.
const MAX_COUNT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Some((counts, stream)) = data.split_first_chunk::<8>() else {
        return;
    };
    let indices = u64::from(u32::from_le_bytes([
        counts[0], counts[1], counts[2], counts[3],
    ]));
    let points = u64::from(u32::from_le_bytes([
        counts[4], counts[5], counts[6], counts[7],
    ]));
    if indices > MAX_COUNT || points > MAX_COUNT {
        return;
    }
    let result = catch_unwind(AssertUnwindSafe(|| {
        decode_draco_stream(stream, indices, points)
    }));
    let faces = match result {
        Ok(Ok(faces)) => faces,
        Ok(Err(_)) => return,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!("a panic escaped the loader: {message}");
            std::process::abort();
        }
    };
    assert_eq!(faces.len() as u64 * 3, indices);
});
