//! Decoding Radiance `.hdr` environments (`EquirectImage::from_hdr_with`):
//! the input bytes are the file. Limits are lowered (2^20 texels, sides of
//! at most 4096) so that each input decodes quickly; the checks they drive
//! are the defaults'. Every input must decode to an image or a typed error:
//! libFuzzer aborts on any panic, and reports an allocation past its
//! `-rss_limit_mb`, so a header announcing more than the limits allow must
//! be refused before the texels are allocated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use unbound::lighting::{EquirectImage, HdrLimits};

const LIMITS: HdrLimits = HdrLimits {
    max_file_bytes: 1 << 24,
    max_texels: 1 << 20,
    max_side: 4096,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(image) = EquirectImage::from_hdr_with(data, &LIMITS) {
        let (width, height) = (image.width(), image.height());
        assert!(width.max(height) <= LIMITS.max_side);
        assert!(u64::from(width) * u64::from(height) <= LIMITS.max_texels);
        assert_eq!(image.texels().len(), (width * height) as usize);
        assert!(
            image
                .texels()
                .iter()
                .all(|t| t.is_finite() && t.min_element() >= 0.0)
        );
    }
});
