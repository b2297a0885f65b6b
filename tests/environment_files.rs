//! Hostile environment files (no GPU): `EquirectImage::open_hdr` under the
//! same file rules as the glTF loader (regular files only, a size cap
//! before reading) and `HdrLimits`' budget checked from the header before
//! decoding. Each is loaded in a child process (`tests/hostile/mod.rs`)
//! under `ulimit -v` and a timeout, its peak RSS measured: the old loader
//! hung on a FIFO and ran out of memory on the others.
//!
//! Linux only: FIFOs, `/dev/zero`, `ulimit` and `/proc/self/status`.
#![cfg(all(target_os = "linux", feature = "hdr"))]

mod hostile;

use std::path::Path;

use hostile::{CaseDir, Outcome};
use unbound::lighting::{EnvironmentError, EquirectImage, HdrLimits};

/// In a child: opens the file with the default limits and returns true.
fn run_as_child() -> bool {
    hostile::run_as_child(|file, _| match EquirectImage::open_hdr(file) {
        Ok(image) => format!("Ok({}x{})", image.width(), image.height()),
        Err(error) => format!("{error:?}"),
    })
}

fn open_in_child(test: &str, file: &Path) -> Outcome {
    let outcome = hostile::load_in_child(test, file, "");
    println!(
        "{}: {} (peak RSS {} KiB)",
        file.display(),
        outcome.result,
        outcome.peak_rss_kib
    );
    outcome
}

/// A run-length-encoded `.hdr` of `width` x `height` texels of one colour:
/// about 8 bytes per 127 texels of a row.
fn rle_hdr(width: u32, height: u32) -> Vec<u8> {
    let mut out =
        format!("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n").into_bytes();
    let mut row = vec![2, 2, (width >> 8) as u8, width as u8];
    for value in [128u8, 64, 32, 129] {
        let mut left = width;
        while left > 0 {
            let run = left.min(127);
            row.extend([128 + run as u8, value]);
            left -= run;
        }
    }
    for _ in 0..height {
        out.extend(&row);
    }
    out
}

/// 17 MB whose header says 16384 x 16384: 6.4 GB decoded by the old
/// loader. Refused from the header, before a texel is allocated; a file at
/// the limits (8192 x 4096) decodes within the budget.
#[test]
fn rle_bombs_are_refused_from_the_header() {
    if run_as_child() {
        return;
    }
    let test = "rle_bombs_are_refused_from_the_header";
    let dir = CaseDir::new("hdr-rle");
    let file = dir.write("bomb.hdr", rle_hdr(16384, 16384));
    assert!(std::fs::metadata(&file).unwrap().len() > 17_000_000);
    let outcome = open_in_child(test, &file);
    let max = HdrLimits::DEFAULT.max_texels;
    assert_eq!(
        outcome.result,
        format!("TooManyTexels {{ width: 16384, height: 16384, max: {max} }}")
    );
    assert!(outcome.peak_rss_kib < 128 << 10, "{outcome:?}");
    // The largest default image: 24 bytes a texel while it decodes.
    let file = dir.write("largest.hdr", rle_hdr(8192, 4096));
    let outcome = open_in_child(test, &file);
    assert_eq!(outcome.result, "Ok(8192x4096)");
}

/// `/dev/zero` (read until memory ran out, 4.3 GB) and a FIFO (hung
/// forever) are refused from their metadata, before they are opened.
#[test]
fn special_files_are_refused_without_reading() {
    if run_as_child() {
        return;
    }
    let test = "special_files_are_refused_without_reading";
    let outcome = open_in_child(test, Path::new("/dev/zero"));
    assert_eq!(outcome.result, r#"NotRegularFile { path: "/dev/zero" }"#);
    let dir = CaseDir::new("hdr-fifo");
    let fifo = dir.fifo("sky.hdr");
    let outcome = open_in_child(test, &fifo);
    assert_eq!(
        outcome.result,
        format!("NotRegularFile {{ path: {fifo:?} }}")
    );
    let outcome = open_in_child(test, &dir.path);
    assert!(
        outcome.result.starts_with("NotRegularFile {"),
        "{outcome:?}"
    );
}

/// A file over `max_file_bytes` is refused from its length, unread (a
/// sparse file: it takes no disk).
#[test]
fn large_files_are_refused_before_reading() {
    if run_as_child() {
        return;
    }
    let dir = CaseDir::new("hdr-large");
    let file = dir.write("large.hdr", rle_hdr(4, 4));
    let bytes = HdrLimits::DEFAULT.max_file_bytes + 1;
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(bytes)
        .unwrap();
    let outcome = open_in_child("large_files_are_refused_before_reading", &file);
    assert_eq!(
        outcome.result,
        format!(
            "FileTooLarge {{ path: {file:?}, bytes: {bytes}, max: {} }}",
            HdrLimits::DEFAULT.max_file_bytes
        )
    );
    assert!(outcome.peak_rss_kib < 64 << 10, "{outcome:?}");
    // The limits are options.
    let small = HdrLimits {
        max_file_bytes: 10,
        ..HdrLimits::DEFAULT
    };
    let file = dir.write("small.hdr", rle_hdr(4, 4));
    assert!(matches!(
        EquirectImage::open_hdr_with(&file, &small),
        Err(EnvironmentError::FileTooLarge { max: 10, .. })
    ));
    let image = EquirectImage::open_hdr_with(&file, &HdrLimits::UNLIMITED).unwrap();
    assert_eq!(image.texels()[0], glam::Vec3::new(1.0, 0.5, 0.25));
}
