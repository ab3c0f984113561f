//! The simulator's cuFFT: the same transforms computed on the host with `rustfft`, in stream
//! order, unnormalised as cuFFT is (an inverse does not divide by n), computed in double
//! precision and stored in the plan's (one instantiation of the crate's algorithms keeps the
//! addon small). A real-to-complex transform writes the `n/2+1` points of the last axis that
//! cuFFT writes; a complex-to-real one reads them, taking the rest as their conjugates. Half and
//! bfloat16 (Xt) plans are computed the same way and rounded to their precision on the store
//! (cuFFT computes them in half). A plan over several simulated devices transforms the parts
//! its devices hold as one. CUDA C callbacks are not run here: the model refuses them.

use super::bytes::Buffer;
use super::memory::sim_alloc;
use super::stream::SimStream;
use super::SimBackend;
use crate::error::Result;
use crate::error::Error;
use crate::ops::fft::{Callback, Direction, Exec, FftMultiOps, FftOps, FftPlanOps, FftType, Layout, Part, PlanSpec, Precision};
use crate::ops::half::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use crate::ops::{AllocOps, StreamOps};
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftNum, FftPlanner};
use std::sync::Arc;

/// A real number as the simulator's bytes hold it, read and written as an f64.
pub trait Word {
    const SIZE: usize;
    fn read(b: &[u8]) -> f64;
    fn write(v: f64, b: &mut [u8]);
}

impl Word for f32 {
    const SIZE: usize = 4;
    fn read(b: &[u8]) -> f64 {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64
    }
    fn write(v: f64, b: &mut [u8]) {
        b[..4].copy_from_slice(&(v as f32).to_le_bytes());
    }
}

impl Word for f64 {
    const SIZE: usize = 8;
    fn read(b: &[u8]) -> f64 {
        let mut w = [0; 8];
        w.copy_from_slice(&b[..8]);
        f64::from_le_bytes(w)
    }
    fn write(v: f64, b: &mut [u8]) {
        b[..8].copy_from_slice(&v.to_le_bytes());
    }
}

/// IEEE half, read as an f64 and rounded to nearest even on the store (through single).
pub struct Half;

impl Word for Half {
    const SIZE: usize = 2;
    fn read(b: &[u8]) -> f64 {
        f16_to_f32(u16::from_le_bytes([b[0], b[1]])) as f64
    }
    fn write(v: f64, b: &mut [u8]) {
        b[..2].copy_from_slice(&f32_to_f16(v as f32).to_le_bytes());
    }
}

/// bfloat16, as [`Half`].
pub struct BFloat16;

impl Word for BFloat16 {
    const SIZE: usize = 2;
    fn read(b: &[u8]) -> f64 {
        bf16_to_f32(u16::from_le_bytes([b[0], b[1]])) as f64
    }
    fn write(v: f64, b: &mut [u8]) {
        b[..2].copy_from_slice(&f32_to_bf16(v as f32).to_le_bytes());
    }
}

/// How one precision's numbers are read and written: a table rather than a type parameter, so
/// the transform is compiled once for the four precisions.
#[derive(Clone, Copy)]
pub struct Words {
    size: usize,
    read: fn(&[u8]) -> f64,
    write: fn(f64, &mut [u8]),
}

impl Words {
    pub fn of<W: Word>() -> Words {
        Words { size: W::SIZE, read: W::read, write: W::write }
    }

    pub fn for_precision(p: Precision) -> Words {
        match p {
            Precision::Half => Words::of::<Half>(),
            Precision::BFloat16 => Words::of::<BFloat16>(),
            Precision::Single => Words::of::<f32>(),
            Precision::Double => Words::of::<f64>(),
        }
    }
}

/// [`host_fft`] in the plan's precision.
pub fn host_fft_any(spec: &PlanSpec, axes: &Axes, x: &Exec, input: &[u8], output: &mut [u8]) {
    host_fft(Words::for_precision(spec.precision()), spec, axes, x, input, output)
}

/// One axis's transforms, forward and inverse, planned once.
pub struct Axes {
    forward: Vec<Arc<dyn Fft<f64>>>,
    inverse: Vec<Arc<dyn Fft<f64>>>,
}

impl Axes {
    pub fn new(shape: &[u64]) -> Axes {
        let mut p = FftPlanner::<f64>::new();
        Axes {
            forward: shape.iter().map(|&n| p.plan_fft_forward(n as usize)).collect(),
            inverse: shape.iter().map(|&n| p.plan_fft_inverse(n as usize)).collect(),
        }
    }

    fn axis(&self, k: usize, direction: Direction) -> &Arc<dyn Fft<f64>> {
        match direction {
            Direction::Forward => &self.forward[k],
            Direction::Inverse => &self.inverse[k],
        }
    }
}

/// Transforms `data` (row-major with sizes `dims`, the last fastest) along `axis` in place.
fn along<T: FftNum>(data: &mut [Complex<T>], dims: &[usize], axis: usize, fft: &dyn Fft<T>) {
    let len = dims[axis];
    let inner: usize = dims[axis + 1..].iter().product();
    let outer: usize = dims[..axis].iter().product();
    let mut scratch = vec![Complex::new(T::zero(), T::zero()); fft.get_inplace_scratch_len()];
    if inner == 1 {
        fft.process_with_scratch(data, &mut scratch);
        return;
    }
    let mut line = vec![Complex::new(T::zero(), T::zero()); len];
    for o in 0..outer {
        for i in 0..inner {
            let base = o * len * inner + i;
            for (j, v) in line.iter_mut().enumerate() {
                *v = data[base + j * inner];
            }
            fft.process_with_scratch(&mut line, &mut scratch);
            for (j, v) in line.iter().enumerate() {
                data[base + j * inner] = *v;
            }
        }
    }
}

/// Every point of `dims`, in row-major order.
fn points(dims: &[u64]) -> impl Iterator<Item = Vec<u64>> + '_ {
    let total: u64 = dims.iter().product();
    let mut x = vec![0u64; dims.len()];
    (0..total).map(move |i| {
        let here = x.clone();
        if i + 1 < total {
            for k in (0..dims.len()).rev() {
                x[k] += 1;
                if x[k] < dims[k] {
                    break;
                }
                x[k] = 0;
            }
        }
        here
    })
}

/// One run of a plan on the host: `input` bytes (at `x.in_off`) to `output` bytes (at
/// `x.out_off`), each batch's points read and written through the layouts.
pub fn host_fft(words: Words, spec: &PlanSpec, axes: &Axes, x: &Exec, input: &[u8], output: &mut [u8]) {
    let layouts = spec.layouts(x.in_place);
    let (din, dout) = (spec.dims(0), spec.dims(1));
    let shape: Vec<usize> = spec.shape.iter().map(|&n| n as usize).collect();
    let rank = shape.len();
    let Words { size: w, read: get, write: put } = words;
    let read = |l: &Layout, b: u64, p: &[u64], complex: bool| -> Complex<f64> {
        let at = x.in_off as usize + l.index(b, p) as usize * if complex { 2 * w } else { w };
        Complex::new(get(&input[at..]), if complex { get(&input[at + w..]) } else { 0.0 })
    };
    let mut write = |l: &Layout, b: u64, p: &[u64], v: Complex<f64>, complex: bool| {
        let at = x.out_off as usize + l.index(b, p) as usize * if complex { 2 * w } else { w };
        put(v.re, &mut output[at..]);
        if complex {
            put(v.im, &mut output[at + w..]);
        }
    };
    // Read every batch first: in place, the output overwrites the input.
    let batches: Vec<Vec<Complex<f64>>> =
        (0..spec.batch).map(|b| points(&din).map(|p| read(&layouts[0], b, &p, spec.ty.complex(0))).collect()).collect();
    for (b, mut data) in batches.into_iter().enumerate() {
        let b = b as u64;
        match spec.ty {
            FftType::C2C | FftType::Z2Z => {
                for k in 0..rank {
                    along(&mut data, &shape, k, &**axes.axis(k, x.direction));
                }
            }
            FftType::R2C | FftType::D2Z => {
                for k in 0..rank {
                    along(&mut data, &shape, k, &**axes.axis(k, Direction::Forward));
                }
                // Keep the first n/2+1 points of the last axis.
                let (n, h) = (shape[rank - 1], dout[rank - 1] as usize);
                data = data.chunks(n).flat_map(|row| row[..h].to_vec()).collect();
            }
            FftType::C2R | FftType::Z2D => {
                let half: Vec<usize> = din.iter().map(|&n| n as usize).collect();
                for k in 0..rank - 1 {
                    along(&mut data, &half, k, &**axes.axis(k, Direction::Inverse));
                }
                // The last axis: the whole spectrum from its first half (the rest conjugates).
                let (n, h) = (shape[rank - 1], half[rank - 1]);
                let mut full = Vec::with_capacity(data.len() / h * n);
                for row in data.chunks(h) {
                    full.extend((0..n).map(|j| if j < h { row[j] } else { row[n - j].conj() }));
                }
                let rows = full.len() / n;
                along(&mut full, &[rows, n], 1, &**axes.axis(rank - 1, Direction::Inverse));
                data = full.into_iter().map(|v| Complex::new(v.re, 0.0)).collect();
            }
        }
        for (p, v) in points(&dout).zip(data) {
            write(&layouts[1], b, &p, v, spec.ty.complex(1));
        }
    }
}

struct SimPlan {
    spec: Arc<PlanSpec>,
    axes: Arc<Axes>,
}

fn sim_stream(s: &dyn StreamOps) -> &SimStream {
    super::own::<SimStream>(s.as_any())
}

impl FftOps for SimBackend {
    fn plan(&self, _ordinal: usize, spec: &PlanSpec, callbacks: &[Callback]) -> Result<Box<dyn FftPlanOps>> {
        if !callbacks.is_empty() {
            return Err(Error::named("CUFFT_NOT_SUPPORTED", "the simulator runs no CUDA C: cuFFT callbacks need the GPU"));
        }
        Ok(Box::new(SimPlan { spec: Arc::new(spec.clone()), axes: Arc::new(Axes::new(&spec.shape)) }))
    }

    fn plan_multi(&self, devices: &[usize], spec: &PlanSpec) -> Result<Box<dyn FftMultiOps>> {
        Ok(Box::new(SimMultiPlan { devices: devices.len(), spec: spec.clone(), axes: Axes::new(&spec.shape) }))
    }
}

/// A plan over several simulated devices: one transform of the parts they hold, put together.
struct SimMultiPlan {
    devices: usize,
    spec: PlanSpec,
    axes: Axes,
}

impl FftMultiOps for SimMultiPlan {
    /// A model of cuFFT's: each device's share of the data again.
    fn work_sizes(&self) -> Vec<u64> {
        let e = self.spec.element(0);
        crate::ops::fft::shares(self.spec.shape[0], self.spec.batch, self.devices).into_iter().map(|n| n * e).collect()
    }

    fn set_work_areas(&self, _areas: &[Part<'_>]) -> Result<()> {
        Ok(())
    }

    fn exec(&self, parts: &[Part<'_>], _scratch: &[Part<'_>], direction: Direction) -> Result<bool> {
        let mut all = Vec::new();
        for p in parts {
            let b = sim_alloc(p.mem).buffer.lock();
            all.extend_from_slice(&b[p.offset as usize..(p.offset + p.len) as usize]);
        }
        let mut out = vec![0u8; all.len()];
        let x = Exec { in_off: 0, out_off: 0, direction, in_place: false };
        host_fft_any(&self.spec, &self.axes, &x, &all, &mut out);
        let mut at = 0;
        for p in parts {
            let mut b = sim_alloc(p.mem).buffer.lock();
            b[p.offset as usize..(p.offset + p.len) as usize].copy_from_slice(&out[at..at + p.len as usize]);
            at += p.len as usize;
        }
        Ok(false)
    }
}

impl FftPlanOps for SimPlan {
    /// A model of cuFFT's: one transform's points as complex numbers of the plan's precision
    /// (the host transform needs none, but a work area from the caller's allocator is the rule
    /// the simulator keeps).
    fn work_size(&self) -> u64 {
        self.spec.shape.iter().product::<u64>() * self.spec.element(if self.spec.ty.complex(0) { 0 } else { 1 })
    }

    fn set_work_area(&self, _area: &dyn AllocOps, _offset: u64) -> Result<()> {
        Ok(())
    }

    fn exec(&self, stream: &dyn StreamOps, x: &Exec, input: &dyn AllocOps, output: &dyn AllocOps) -> Result<()> {
        let (input, output, x, spec) = (sim_alloc(input).buffer.clone(), sim_alloc(output).buffer.clone(), *x, self.spec.clone());
        let label = format!("fft {} {:?} x{}", spec.ty.name(), spec.shape, spec.batch);
        let axes = self.axes.clone();
        sim_stream(stream).run("kernel", label, move || run(&spec, &axes, &x, &input, &output))
    }
}

fn run(spec: &PlanSpec, axes: &Axes, x: &Exec, input: &Buffer, output: &Buffer) {
    if std::ptr::eq(input, output) {
        let mut bytes = output.lock();
        let copy = bytes.clone();
        host_fft_any(spec, axes, x, &copy, &mut bytes);
    } else {
        let src = input.lock().clone();
        host_fft_any(spec, axes, x, &src, &mut output.lock());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dft(x: &[Complex<f64>], sign: f64) -> Vec<Complex<f64>> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Complex::new(0.0, 0.0), |acc, (j, v)| {
                    let a = sign * 2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                    acc + v * Complex::new(a.cos(), a.sin())
                })
            })
            .collect()
    }

    fn bytes_c(v: &[Complex<f64>]) -> Vec<u8> {
        v.iter().flat_map(|c| [c.re.to_le_bytes(), c.im.to_le_bytes()].concat()).collect()
    }

    fn from_c(b: &[u8]) -> Vec<Complex<f64>> {
        b.chunks(16).map(|w| Complex::new(f64::read(w), f64::read(&w[8..]))).collect()
    }

    fn spec(ty: FftType, shape: &[u64], batch: u64) -> PlanSpec {
        PlanSpec::basic(ty, shape.to_vec(), batch)
    }

    fn exec(direction: Direction) -> Exec {
        Exec { in_off: 0, out_off: 0, direction, in_place: false }
    }

    fn signal(n: usize, seed: u64) -> Vec<Complex<f64>> {
        (0..n).map(|i| Complex::new(((i as u64 * 7 + seed) % 13) as f64 - 6.0, ((i as u64 * 5 + seed) % 11) as f64 / 3.0)).collect()
    }

    fn close(a: &[Complex<f64>], b: &[Complex<f64>]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).norm() < 1e-9 * (1.0 + y.norm()), "{x} vs {y}");
        }
    }

    #[test]
    fn z2z_matches_a_naive_dft_both_ways_and_is_unnormalised() {
        for n in [1usize, 2, 5, 8, 12, 17] {
            let x = signal(n * 3, n as u64);
            let s = spec(FftType::Z2Z, &[n as u64], 3);
            let axes = Axes::new(&s.shape);
            for (dir, sign) in [(Direction::Forward, -1.0), (Direction::Inverse, 1.0)] {
                let mut out = vec![0u8; n * 3 * 16];
                host_fft_any(&s, &axes, &exec(dir), &bytes_c(&x), &mut out);
                let want: Vec<_> = x.chunks(n).flat_map(|row| dft(row, sign)).collect();
                close(&from_c(&out), &want);
            }
        }
    }

    #[test]
    fn a_2d_z2z_is_the_dft_of_rows_then_columns() {
        let (r, c) = (3usize, 4usize);
        let x = signal(r * c, 1);
        let s = spec(FftType::Z2Z, &[r as u64, c as u64], 1);
        let mut out = vec![0u8; r * c * 16];
        host_fft_any(&s, &Axes::new(&s.shape), &exec(Direction::Forward), &bytes_c(&x), &mut out);
        let rows: Vec<_> = x.chunks(c).flat_map(|row| dft(row, -1.0)).collect();
        let mut want = rows.clone();
        for j in 0..c {
            let col: Vec<_> = (0..r).map(|i| rows[i * c + j]).collect();
            for (i, v) in dft(&col, -1.0).into_iter().enumerate() {
                want[i * c + j] = v;
            }
        }
        close(&from_c(&out), &want);
    }

    #[test]
    fn d2z_writes_half_the_spectrum_and_z2d_brings_back_n_times_the_signal() {
        for shape in [vec![6u64], vec![7], vec![3, 5], vec![2, 3, 4]] {
            let total: u64 = shape.iter().product();
            let real: Vec<f64> = (0..total).map(|i| ((i * 7 + 3) % 10) as f64 - 4.5).collect();
            let rb: Vec<u8> = real.iter().flat_map(|v| v.to_le_bytes()).collect();
            let f = spec(FftType::D2Z, &shape, 1);
            let half = f.dims(1).iter().product::<u64>() as usize;
            let mut spectrum = vec![0u8; half * 16];
            host_fft_any(&f, &Axes::new(&shape), &exec(Direction::Forward), &rb, &mut spectrum);
            if shape.len() == 1 {
                let full = dft(&real.iter().map(|&v| Complex::new(v, 0.0)).collect::<Vec<_>>(), -1.0);
                close(&from_c(&spectrum), &full[..half]);
            }
            let i = spec(FftType::Z2D, &shape, 1);
            let mut back = vec![0u8; total as usize * 8];
            host_fft_any(&i, &Axes::new(&shape), &exec(Direction::Inverse), &spectrum, &mut back);
            for (k, w) in back.chunks(8).enumerate() {
                assert!((f64::read(w) - total as f64 * real[k]).abs() < 1e-9, "{shape:?} at {k}");
            }
        }
    }

    #[test]
    fn in_place_real_transforms_use_the_padded_layout() {
        let n = 6u64;
        // Two batches of 6 reals: in place, each row of reals is padded to the 4 complex outputs.
        let s = spec(FftType::D2Z, &[n], 2);
        assert_eq!(s.extents(true).unwrap(), [(8 + 6) * 8, 2 * 4 * 16]);
        assert_eq!(s.extents(false).unwrap(), [12 * 8, 2 * 4 * 16]);
    }

    #[test]
    fn a_layout_with_strides_reads_and_writes_where_it_says() {
        // Two interleaved signals of 4 points: stride 2, dist 1.
        let x = signal(8, 2);
        let l = Layout { embed: vec![4], stride: 2, dist: 1 };
        let s = PlanSpec { ty: FftType::Z2Z, shape: vec![4], batch: 2, layout: Some([l.clone(), l]), xt: None };
        s.check().unwrap();
        let mut out = vec![0u8; 8 * 16];
        host_fft_any(&s, &Axes::new(&s.shape), &exec(Direction::Forward), &bytes_c(&x), &mut out);
        let got = from_c(&out);
        for b in 0..2 {
            let row: Vec<_> = (0..4).map(|j| x[j * 2 + b]).collect();
            let want = dft(&row, -1.0);
            close(&(0..4).map(|j| got[j * 2 + b]).collect::<Vec<_>>(), &want);
        }
    }

    #[test]
    fn bad_specs_are_refused() {
        let code = |s: PlanSpec| s.check().unwrap_err().code_name().unwrap_or_default();
        assert_eq!(code(spec(FftType::C2C, &[0], 1)), "CUFFT_INVALID_SIZE");
        assert_eq!(code(spec(FftType::C2C, &[4], 0)), "CUFFT_INVALID_SIZE");
        assert_eq!(code(spec(FftType::C2C, &[2, 2, 2, 2], 1)), "CUFFT_INVALID_SIZE");
        assert!(FftType::parse("r2r").is_err());
    }
}
