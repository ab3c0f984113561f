//! The host reductions the hub computes collectives with.

use super::half::{f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::ops::nccl::{DataType, RedOp};

/// Reduces `parts` (each `count` elements of `dtype`, little-endian) with `op` into one.
/// The simulator's reduction; also the reference its tests compare with.
pub fn host_reduce(dtype: DataType, op: RedOp, parts: &[&[u8]]) -> Vec<u8> {
    let n = parts.len();
    let mut out = parts[0].to_vec();
    macro_rules! ints {
        ($t:ty) => {{
            const W: usize = std::mem::size_of::<$t>();
            for (i, chunk) in out.chunks_exact_mut(W).enumerate() {
                let mut acc = <$t>::from_le_bytes(chunk.try_into().unwrap());
                for p in &parts[1..] {
                    let v = <$t>::from_le_bytes(p[i * W..i * W + W].try_into().unwrap());
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc.wrapping_add(v),
                        RedOp::Prod => acc.wrapping_mul(v),
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as $t;
                }
                chunk.copy_from_slice(&acc.to_le_bytes());
            }
        }};
    }
    macro_rules! floats {
        ($w:expr, $read:expr, $write:expr) => {{
            for (i, chunk) in out.chunks_exact_mut($w).enumerate() {
                let mut acc: f64 = $read(&*chunk);
                for p in &parts[1..] {
                    let v: f64 = $read(&p[i * $w..i * $w + $w]);
                    acc = match op {
                        RedOp::Sum | RedOp::Avg => acc + v,
                        RedOp::Prod => acc * v,
                        RedOp::Max => acc.max(v),
                        RedOp::Min => acc.min(v),
                    };
                }
                if op == RedOp::Avg {
                    acc /= n as f64;
                }
                chunk.copy_from_slice(&$write(acc));
            }
        }};
    }
    match dtype {
        DataType::I8 => ints!(i8),
        DataType::U8 => ints!(u8),
        DataType::I32 => ints!(i32),
        DataType::U32 => ints!(u32),
        DataType::I64 => ints!(i64),
        DataType::U64 => ints!(u64),
        DataType::F32 => floats!(4, |b: &[u8]| f32::from_le_bytes(b.try_into().unwrap()) as f64, |v: f64| (v as f32).to_le_bytes()),
        DataType::F64 => floats!(8, |b: &[u8]| f64::from_le_bytes(b.try_into().unwrap()), |v: f64| v.to_le_bytes()),
        DataType::F16 => {
            floats!(2, |b: &[u8]| f16_to_f32(u16::from_le_bytes(b.try_into().unwrap())) as f64, |v: f64| f32_to_f16(v as f32).to_le_bytes())
        }
        DataType::BF16 => floats!(
            2,
            |b: &[u8]| f32::from_bits((u16::from_le_bytes(b.try_into().unwrap()) as u32) << 16) as f64,
            |v: f64| f32_to_bf16(v as f32).to_le_bytes()
        ),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_of_each_kind() {
        let a = [1i32, -2, 7].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let b = [3i32, 5, -1].iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        let read = |v: Vec<u8>| v.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>();
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Sum, &[&a, &b])), [4, 3, 6]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Max, &[&a, &b])), [3, 5, 7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Prod, &[&a, &b])), [3, -10, -7]);
        assert_eq!(read(host_reduce(DataType::I32, RedOp::Avg, &[&a, &b])), [2, 1, 3]);
        let h = |v: f32| f32_to_f16(v).to_le_bytes();
        let r = host_reduce(DataType::F16, RedOp::Sum, &[&h(1.5), &h(2.25)]);
        assert_eq!(f16_to_f32(u16::from_le_bytes([r[0], r[1]])), 3.75);
    }
}
