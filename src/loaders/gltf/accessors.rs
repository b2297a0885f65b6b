//! Reading accessors: unbound's own reader (the `gltf` crate's knows
//! neither quantized attributes, accessors without a buffer view nor
//! decompressed views).
//!
//! - Components of every type are read little-endian and converted to
//!   `f32`; normalised integers are dequantised as the specification says
//!   (`max(c / 127, -1)` for signed bytes, `c / 255` for unsigned bytes,
//!   likewise with 32767 and 65535 for shorts), unnormalised ones keep
//!   their value (`KHR_mesh_quantization` positions and texture
//!   coordinates). Node transforms, `KHR_texture_transform` and skins'
//!   inverse bind matrices fold the rest of gltfpack's dequantisation in,
//!   as they do for any file.
//! - An accessor without a buffer view is zeros; sparse storage replaces
//!   the elements it names, on zeros or on the view's data.
//! - A view's bytes are the decompressed ones where meshopt compresses it
//!   ([`Buffers::view`]); an accessor a Draco stream decodes
//!   (`KHR_draco_mesh_compression`, `draco.rs`) reads the decoded bytes
//!   instead of its view, if it has one.
//!
//! Every offset, stride and sparse index is checked before it is read:
//! a bad one is an error naming the accessor, never a panic.

use gltf::accessor::DataType;

use super::buffers::Buffers;

/// One component, little-endian, as `f32` (dequantised if `normalized`).
fn float(bytes: &[u8], data_type: DataType, normalized: bool) -> f32 {
    let int = integer(bytes, data_type) as f32;
    match (data_type, normalized) {
        (DataType::F32, _) => f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        (DataType::I8, _) => signed(f32::from(bytes[0] as i8), 127.0, normalized),
        (DataType::I16, _) => signed(
            f32::from(i16::from_le_bytes([bytes[0], bytes[1]])),
            32767.0,
            normalized,
        ),
        (DataType::U8, true) => int / 255.0,
        (DataType::U16, true) => int / 65535.0,
        (DataType::U32, true) => int / 4_294_967_295.0,
        (_, false) => int,
    }
}

fn signed(value: f32, max: f32, normalized: bool) -> f32 {
    if normalized {
        (value / max).max(-1.0)
    } else {
        value
    }
}

/// One unsigned component, little-endian (floats and signed types as
/// their bits: indices are unsigned).
fn integer(bytes: &[u8], data_type: DataType) -> u32 {
    match data_type {
        DataType::I8 | DataType::U8 => u32::from(bytes[0]),
        DataType::I16 | DataType::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        DataType::U32 | DataType::F32 => {
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
        }
    }
}

/// Checks that `count` elements of `size` bytes, `stride` apart from
/// `offset`, lie within `len` bytes.
fn check_range(
    what: &str,
    (offset, stride, size): (usize, usize, usize),
    count: usize,
    len: usize,
) -> Result<(), String> {
    let end = count
        .checked_sub(1)
        .and_then(|last| stride.checked_mul(last))
        .and_then(|n| n.checked_add(size))
        .and_then(|n| n.checked_add(offset));
    match end {
        _ if count == 0 => Ok(()),
        Some(end) if end <= len => Ok(()),
        _ => Err(format!(
            "{what}: {count} elements of {size} bytes (stride {stride}) at offset {offset} overrun {len} bytes"
        )),
    }
}

/// The elements of `accessor`, `N` components each, converted by `convert`
/// (zeros without a buffer view, sparse elements replaced).
fn read<T: Copy + Default, const N: usize>(
    buffers: &Buffers,
    accessor: &gltf::Accessor<'_>,
    convert: impl Fn(&[u8]) -> T,
) -> Result<Vec<[T; N]>, String> {
    let index = accessor.index();
    let component = accessor.data_type().size();
    let size = component * N;
    let count = accessor.count();
    let element = |bytes: &[u8], at: usize| -> [T; N] {
        std::array::from_fn(|c| convert(&bytes[at + c * component..]))
    };
    let mut out = vec![[T::default(); N]; count];
    if let Some(bytes) = buffers.draco.get(&index) {
        check_range(
            &format!("accessor {index}"),
            (0, size, size),
            count,
            bytes.len(),
        )?;
        for (i, out) in out.iter_mut().enumerate() {
            *out = element(bytes, i * size);
        }
    } else if let Some(view) = accessor.view() {
        let bytes = buffers.view(&view);
        let stride = view.stride().unwrap_or(size).max(size);
        let layout = (accessor.offset(), stride, size);
        check_range(&format!("accessor {index}"), layout, count, bytes.len())?;
        for (i, out) in out.iter_mut().enumerate() {
            *out = element(bytes, accessor.offset() + i * stride);
        }
    }
    if let Some(sparse) = accessor.sparse() {
        let n = sparse.count();
        let indices = sparse.indices();
        let (index_bytes, index_type) = (buffers.view(&indices.view()), indices.index_type());
        let index_size = index_type.size();
        let layout = (indices.offset(), index_size, index_size);
        check_range(
            &format!("accessor {index}'s sparse indices"),
            layout,
            n,
            index_bytes.len(),
        )?;
        let values = sparse.values();
        let value_bytes = buffers.view(&values.view());
        let layout = (values.offset(), size, size);
        check_range(
            &format!("accessor {index}'s sparse values"),
            layout,
            n,
            value_bytes.len(),
        )?;
        let index_data_type = match index_type {
            gltf::accessor::sparse::IndexType::U8 => DataType::U8,
            gltf::accessor::sparse::IndexType::U16 => DataType::U16,
            gltf::accessor::sparse::IndexType::U32 => DataType::U32,
        };
        for k in 0..n {
            let at = indices.offset() + k * index_size;
            let target = integer(&index_bytes[at..], index_data_type) as usize;
            let slot = out.get_mut(target).ok_or_else(|| {
                format!("accessor {index}: sparse index {target} is outside its {count} elements")
            })?;
            *slot = element(value_bytes, values.offset() + k * size);
        }
    }
    Ok(out)
}

/// `accessor`'s elements as `N` floats each (see the module docs).
pub(super) fn read_floats<const N: usize>(
    buffers: &Buffers,
    accessor: &gltf::Accessor<'_>,
) -> Result<Vec<[f32; N]>, String> {
    let (data_type, normalized) = (accessor.data_type(), accessor.normalized());
    read(buffers, accessor, |bytes| {
        float(bytes, data_type, normalized)
    })
}

/// `accessor`'s scalar unsigned integers (indices).
pub(super) fn read_indices(
    buffers: &Buffers,
    accessor: &gltf::Accessor<'_>,
) -> Result<Vec<u32>, String> {
    let data_type = accessor.data_type();
    let read: Vec<[u32; 1]> = read(buffers, accessor, |bytes| integer(bytes, data_type))?;
    Ok(read.into_iter().map(|[i]| i).collect())
}

/// `accessor`'s elements as `N` unsigned integers each (joint indices),
/// unconverted.
pub(super) fn read_integers<const N: usize>(
    buffers: &Buffers,
    accessor: &gltf::Accessor<'_>,
) -> Result<Vec<[u32; N]>, String> {
    let data_type = accessor.data_type();
    read(buffers, accessor, |bytes| integer(bytes, data_type))
}

#[cfg(test)]
mod tests {
    use gltf::accessor::DataType;

    #[test]
    fn normalised_integers_dequantise_as_the_specification_says() {
        let f = super::float;
        assert_eq!(f(&[127], DataType::I8, true), 1.0);
        assert_eq!(f(&[0x80], DataType::I8, true), -1.0);
        assert_eq!(f(&[0x81], DataType::I8, true), -1.0);
        assert_eq!(f(&[0x80], DataType::I8, false), -128.0);
        assert_eq!(f(&[255], DataType::U8, true), 1.0);
        assert_eq!(f(&[51], DataType::U8, true), 0.2);
        assert_eq!(f(&[0xFF, 0x7F], DataType::I16, true), 1.0);
        assert_eq!(f(&[0x00, 0x80], DataType::I16, true), -1.0);
        assert_eq!(f(&[0x00, 0x80], DataType::I16, false), -32768.0);
        assert_eq!(f(&[0xFF, 0xFF], DataType::U16, true), 1.0);
        assert_eq!(f(&[0xFF, 0xFF], DataType::U16, false), 65535.0);
        assert_eq!(f(&1.5f32.to_le_bytes(), DataType::F32, false), 1.5);
    }

    #[test]
    fn ranges_are_checked_without_overflow() {
        assert!(super::check_range("a", (0, 12, 12), 2, 24).is_ok());
        assert!(super::check_range("a", (4, 12, 12), 2, 24).is_err());
        assert!(super::check_range("a", (0, usize::MAX, 4), 3, 24).is_err());
        assert!(super::check_range("a", (usize::MAX, 4, 4), 0, 0).is_ok());
    }
}
