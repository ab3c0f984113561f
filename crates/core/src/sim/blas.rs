//! The simulator's BLAS: cuBLAS's column-major results, computed on the host in stream order.

use super::bytes::Buffer;
use super::memory::sim_alloc;
use super::stream::SimStream;
use super::SimBackend;
use crate::error::Result;
use crate::ops::blas::{host_gemm, Axpy, BlasOps, Call, Compute, DataType, Library, MatMul, Real, Setting};
use crate::ops::blas_table::{Io, Kind, Param, Shape};
use crate::ops::{AllocOps, StreamOps};

fn sim_stream(s: &dyn StreamOps) -> &SimStream {
    super::own::<SimStream>(s.as_any())
}

impl BlasOps for SimBackend {
    fn handle(&self, ordinal: usize, lib: Library) -> Result<u64> {
        // Stable per thread, device and library, as the real ones are; nothing to create.
        static THREADS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        thread_local!(static THREAD: u64 = THREADS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let thread = THREAD.with(|t| *t);
        Ok(0x0b1a_0000_0000 + (thread << 16) + ((ordinal as u64) << 8) + lib as u64 * 16)
    }

    fn axpy(&self, stream: &dyn StreamOps, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()> {
        axpy(sim_stream(stream), op, x, y)
    }

    fn matmul(&self, stream: &dyn StreamOps, g: &MatMul, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()> {
        matmul(sim_stream(stream), g, a, b, c)
    }

    fn call(&self, stream: &dyn StreamOps, call: &Call, mems: &[Option<&dyn AllocOps>]) -> Result<Vec<f64>> {
        run_call(sim_stream(stream), call, mems)
    }

    fn setting(&self, ordinal: usize, setting: Setting, value: Option<i32>) -> Result<i32> {
        thread_local! {
            /// This thread's handles' pointer, math and atomics modes, by device.
            static SETTINGS: std::cell::RefCell<Vec<(usize, [i32; 3])>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let i = match setting {
            Setting::PointerMode => 0,
            Setting::MathMode => 1,
            Setting::AtomicsMode => 2,
            // No cuBLAS is loaded: the simulator's version is 0.
            Setting::Version => return Ok(0),
        };
        Ok(SETTINGS.with(|t| {
            let mut t = t.borrow_mut();
            let k = t.iter().position(|(d, _)| *d == ordinal).unwrap_or_else(|| {
                t.push((ordinal, [0; 3]));
                t.len() - 1
            });
            if let Some(v) = value {
                t[k].1[i] = v;
            }
            t[k].1[i]
        }))
    }
}

/// Where an operand's bytes are: an allocation's buffer and the offset in it, or (host pointer
/// mode) the values' own bytes.
enum Place {
    Device(std::sync::Arc<Buffer>, usize),
    Host(Vec<u8>),
    Empty,
}

/// A typed entry point on the host (`blas_ref.rs`), in stream order. Operands are copied out
/// first and only the elements an output addresses are written back: operands may share an
/// allocation, interleaved. A host pointer mode's outputs are waited for, as cuBLAS blocks for them.
fn run_call(s: &SimStream, call: &Call, mems: &[Option<&dyn AllocOps>]) -> Result<Vec<f64>> {
    let elem = call.entry.elem;
    let place = |i: usize| match mems[i] {
        Some(m) => Place::Device(sim_alloc(m).buffer.clone(), call.offsets[i] as usize),
        None => Place::Empty,
    };
    // Each array's places: one, or one a batch for an array of pointers (`Batched` entries).
    let (mut arrays, mut values) = (Vec::new(), Vec::new());
    let (mut at, mut batches) = (0, 1);
    let mut host = call.host.iter().copied();
    for p in call.entry.params {
        match *p {
            Param::Array(name, io, shape) | Param::Batch(name, io, shape) => {
                let n = call.entry.operands(*p, call);
                if matches!(p, Param::Batch(..)) {
                    batches = n;
                }
                let size = call.array_size(name);
                arrays.push(((at..at + n).map(place).collect::<Vec<_>>(), (call.span(shape, name)? * size) as usize, io, shape, name, size as usize));
                at += n;
            }
            Param::Ints(name, io, len) => {
                let shape = Shape::Vector { len, inc: "" };
                arrays.push((vec![place(at)], (call.span(shape, name)? * 4) as usize, io, shape, name, 4));
                at += 1;
            }
            Param::Value(name, kind, io, len) => {
                let bytes = (call.value_size(name, kind) * len as u64) as usize;
                values.push((Place::Empty, bytes, io, kind, name));
                let words = crate::ops::blas_table::value_words(elem, kind) * len as usize;
                if !call.device_values {
                    let given: Vec<f64> = if io == Io::Out { vec![0.0; words] } else { host.by_ref().take(words).collect() };
                    values.last_mut().unwrap().0 = Place::Host(call.encode_value(name, kind, &given));
                }
            }
            _ => {}
        }
    }
    if call.device_values {
        for (i, v) in values.iter_mut().enumerate() {
            v.0 = place(at + i);
        }
    }
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Vec<u8>>::new()));
    let (result, call2) = (out.clone(), call.clone());
    s.run("kernel", call.entry.name, move || {
        let load = |p: &Place, len: usize| match p {
            Place::Device(b, off) => b.lock()[*off..*off + len].to_vec(),
            Place::Host(v) => v.clone(),
            Place::Empty => vec![0; len],
        };
        // An `Ex` call's operands in the typed entry's types, computed in them and rounded back.
        let typed = |name: &str, kind: Kind, b: Vec<u8>| match &call2.ex {
            Some(x) => x.to_typed(name, elem, kind, &b),
            None => b,
        };
        let own = |name: &str, kind: Kind, b: Vec<u8>| match &call2.ex {
            Some(x) => x.from_typed(name, elem, kind, &b),
            None => b,
        };
        let mut v: Vec<Vec<u8>> = values.iter().map(|(p, len, _, kind, name)| typed(name, *kind, load(p, *len))).collect();
        // A batched entry is its routine once a batch, on that batch's matrices.
        for batch in 0..batches {
            let pick = |places: &Vec<Place>| if places.len() == 1 { 0 } else { batch };
            let mut a: Vec<Vec<u8>> = arrays.iter().map(|(p, len, _, _, name, _)| typed(name, Kind::Elem, load(&p[pick(p)], *len))).collect();
            // The model checked every extent; were the reference still to fail, the stream goes
            // on and nothing is written (a panic here would stop the simulated device).
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| super::blas_ref::run(&call2, batch, &mut a, &mut v)));
            if ran.is_err() {
                return;
            }
            let a: Vec<Vec<u8>> = arrays.iter().zip(a).map(|((.., name, _), b)| own(name, Kind::Elem, b)).collect();
            for ((p, _, io, shape, name, w), bytes) in arrays.iter().zip(&a) {
                if let (Place::Device(b, off), true) = (&p[pick(p)], *io != Io::In) {
                    let w = *w;
                    let mut buf = b.lock();
                    for i in super::blas_ref::addressed(&call2, *shape, name) {
                        buf[off + i * w..off + i * w + w].copy_from_slice(&bytes[i * w..i * w + w]);
                    }
                }
            }
        }
        let v: Vec<Vec<u8>> = values.iter().zip(v).map(|((.., kind, name), b)| own(name, *kind, b)).collect();
        for ((p, len, io, ..), bytes) in values.iter().zip(&v) {
            if let (Place::Device(b, off), true) = (p, *io != Io::In) {
                b.lock()[*off..*off + len].copy_from_slice(bytes);
            }
        }
        let kept: Vec<Vec<u8>> = values.iter().zip(v).filter(|((_, _, io, ..), _)| *io != Io::In).map(|(_, b)| b).collect();
        *result.lock().unwrap_or_else(|e| e.into_inner()) = kept;
    })?;
    let outputs: Vec<(&str, Kind)> = call
        .entry
        .params
        .iter()
        .filter_map(|p| match p {
            Param::Value(name, kind, io, _) if *io != Io::In => Some((*name, *kind)),
            _ => None,
        })
        .collect();
    if call.device_values || outputs.is_empty() {
        return Ok(vec![]);
    }
    s.synchronize()?;
    let bytes = std::mem::take(&mut *out.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(outputs.iter().zip(bytes).flat_map(|((name, k), b)| call.decode_value(name, *k, &b)).collect())
}

/// Single rounded to TF32 (10 bits of mantissa, to nearest even), as the tensor cores read
/// operands under `CUBLAS_COMPUTE_32F_FAST_TF32`.
fn tf32(v: f64) -> f64 {
    let f = v as f32;
    if !f.is_finite() {
        return v;
    }
    let x = f.to_bits();
    f32::from_bits(x.wrapping_add(0xfff + ((x >> 13) & 1)) & !0x1fff) as f64
}

/// Each product of the batch in float64 on the host (TF32 operands rounded first), its result
/// rounded to C's type: cuBLAS's results to its own rounding, not bit for bit.
fn matmul(s: &SimStream, g: &MatMul, a: &dyn AllocOps, b: &dyn AllocOps, c: &dyn AllocOps) -> Result<()> {
    let (a, b, c, g) = (sim_alloc(a).buffer.clone(), sim_alloc(b).buffer.clone(), sim_alloc(c).buffer.clone(), *g);
    let [span_a, span_b, span_c] = g.spans()?;
    let what = if g.batched { format!("gemm {}x{}x{} batch {}", g.m, g.n, g.k, g.batch) } else { format!("gemm {}x{}x{}", g.m, g.n, g.k) };
    s.run("kernel", what, move || {
        let shape = g.shape();
        // Operands are copied out first: A, B and C may share an allocation.
        let load = |buf: &Buffer, off: u64, ty: DataType, span: u64| -> Vec<f64> {
            let bytes = buf.lock();
            let at = &bytes[off as usize..];
            (0..span as usize).map(|i| ty.read(at, i)).map(|v| if g.compute == Compute::F32FastTf32 { tf32(v) } else { v }).collect()
        };
        for i in 0..g.batch {
            let av = load(&a, g.a_off + i * g.stride_a * g.a_type.size(), g.a_type, span_a);
            let bv = load(&b, g.b_off + i * g.stride_b * g.b_type.size(), g.b_type, span_b);
            let mut cb = c.lock();
            let at = &mut cb[(g.c_off + i * g.stride_c * g.c_type.size()) as usize..];
            let mut cv: Vec<f64> = (0..span_c as usize).map(|j| g.c_type.read(at, j)).collect();
            host_gemm(&shape, &av, &bv, &mut cv);
            for (j, v) in cv.into_iter().enumerate() {
                if (j as u64 % g.ldc) < g.m {
                    g.c_type.write(at, j, v);
                }
            }
        }
    })
}

fn axpy(s: &SimStream, op: &Axpy, x: &dyn AllocOps, y: &dyn AllocOps) -> Result<()> {
    let (x, y, op) = (sim_alloc(x).buffer.clone(), sim_alloc(y).buffer.clone(), *op);
    s.run("kernel", format!("axpy {}", op.n), move || {
        let xs = x.lock()[op.x_off as usize..].to_vec();
        let mut ys = y.lock();
        let w = op.dtype.size() as usize;
        for i in 0..op.n as usize {
            let (xi, yi) = (i * op.incx as usize * w, op.y_off as usize + i * op.incy as usize * w);
            match op.dtype {
                Real::F32 => {
                    let xv = f32::from_le_bytes(xs[xi..xi + 4].try_into().unwrap());
                    let yv = f32::from_le_bytes(ys[yi..yi + 4].try_into().unwrap());
                    ys[yi..yi + 4].copy_from_slice(&(op.alpha as f32 * xv + yv).to_le_bytes());
                }
                Real::F64 => {
                    let xv = f64::from_le_bytes(xs[xi..xi + 8].try_into().unwrap());
                    let yv = f64::from_le_bytes(ys[yi..yi + 8].try_into().unwrap());
                    ys[yi..yi + 8].copy_from_slice(&(op.alpha * xv + yv).to_le_bytes());
                }
            }
        }
    })
}
