//! The host reference of cuBLAS's typed entry points (`ops/blas_table.rs`), written once over
//! the element type: f32, f64 and their complex pairs, each computed in its own precision, as
//! the reference BLAS defines the results (column-major, the stored triangle or band only).

use crate::ops::blas_table::{Call, Io, Kind, Param, Routine, Shape};
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A real element type.
pub trait Real: Num<R = Self> + PartialOrd {
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn f(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

/// An element type: real or complex.
pub trait Num:
    Copy + Default + PartialEq + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    type R: Real;
    /// Bytes of one element.
    const W: usize;
    fn re(self) -> Self::R;
    fn im(self) -> Self::R;
    /// `re + i·im` (a real type drops `im`).
    fn new(re: Self::R, im: Self::R) -> Self;
    fn conj(self) -> Self;
    fn read(b: &[u8]) -> Self;
    fn write(self, b: &mut [u8]);

    fn real(r: Self::R) -> Self {
        Self::new(r, Self::R::default())
    }
    fn one() -> Self {
        Self::real(Self::R::f(1.0))
    }
    fn is_zero(self) -> bool {
        self == Self::default()
    }
    /// |re| + |im|: what amax, amin and asum compare and add.
    fn abs1(self) -> Self::R {
        self.re().abs() + self.im().abs()
    }
    /// |v|².
    fn norm2(self) -> Self::R {
        self.re() * self.re() + self.im() * self.im()
    }
}

macro_rules! real {
    ($t:ty, $w:literal) => {
        impl Real for $t {
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn f(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
        impl Num for $t {
            type R = $t;
            const W: usize = $w;
            fn re(self) -> $t {
                self
            }
            fn im(self) -> $t {
                0.0
            }
            fn new(re: $t, _im: $t) -> $t {
                re
            }
            fn conj(self) -> $t {
                self
            }
            fn read(b: &[u8]) -> $t {
                <$t>::from_le_bytes(b[..$w].try_into().unwrap())
            }
            fn write(self, b: &mut [u8]) {
                b[..$w].copy_from_slice(&self.to_le_bytes())
            }
        }
    };
}
real!(f32, 4);
real!(f64, 8);

/// A complex number of `R`s (cuComplex, cuDoubleComplex).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cx<R> {
    pub re: R,
    pub im: R,
}

impl<R: Real> Add for Cx<R> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Cx { re: self.re + o.re, im: self.im + o.im }
    }
}
impl<R: Real> Sub for Cx<R> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Cx { re: self.re - o.re, im: self.im - o.im }
    }
}
impl<R: Real> Mul for Cx<R> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Cx { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}
impl<R: Real> Div for Cx<R> {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        let d = o.re * o.re + o.im * o.im;
        Cx { re: (self.re * o.re + self.im * o.im) / d, im: (self.im * o.re - self.re * o.im) / d }
    }
}
impl<R: Real> Neg for Cx<R> {
    type Output = Self;
    fn neg(self) -> Self {
        Cx { re: -self.re, im: -self.im }
    }
}
impl<R: Real> Num for Cx<R> {
    type R = R;
    const W: usize = 2 * R::W;
    fn re(self) -> R {
        self.re
    }
    fn im(self) -> R {
        self.im
    }
    fn new(re: R, im: R) -> Self {
        Cx { re, im }
    }
    fn conj(self) -> Self {
        Cx { re: self.re, im: -self.im }
    }
    fn read(b: &[u8]) -> Self {
        Cx { re: R::read(b), im: R::read(&b[R::W..]) }
    }
    fn write(self, b: &mut [u8]) {
        self.re.write(b);
        self.im.write(&mut b[R::W..]);
    }
}

/// Runs `call` on its operands' bytes: `arrays` (each from its first element) and `values` (each
/// scalar's bytes), in the order of the entry's parameters; outputs are written into them.
/// `batch`: which batch of a `Batched` entry the arrays of pointers' matrices are (the int
/// arrays hold every batch's).
pub fn run(call: &Call, batch: usize, arrays: &mut [Vec<u8>], values: &mut [Vec<u8>]) {
    use crate::ops::blas_table::Elem;
    match call.entry.elem {
        Elem::S => Frame::<f32>::new(call, batch, arrays, values).run(arrays, values),
        Elem::D => Frame::<f64>::new(call, batch, arrays, values).run(arrays, values),
        Elem::C => Frame::<Cx<f32>>::new(call, batch, arrays, values).run(arrays, values),
        Elem::Z => Frame::<Cx<f64>>::new(call, batch, arrays, values).run(arrays, values),
    }
}

/// Whether `p` is an array of the call (its elements, a batch's matrix, or ints).
fn is_array(p: &Param) -> bool {
    matches!(p, Param::Array(..) | Param::Batch(..) | Param::Ints(..))
}

/// The elements of an array's span its shape addresses (not the gaps between columns or
/// increments, which another operand may own): what a call may write.
pub fn addressed(c: &Call, shape: Shape, name: &str) -> Vec<usize> {
    let count = |n: i64| n.max(0) as usize;
    match shape {
        Shape::Vector { len, inc } => {
            let inc = if inc.is_empty() { 1 } else { count(c.int(inc)) };
            (0..count(c.len_of(len))).map(|i| i * inc).collect()
        }
        Shape::Matrix { rows, cols, ld, batch } => {
            let (rows, cols, ld) = (count(c.len_of(rows)), count(c.len_of(cols)), count(c.int(ld)));
            let (stride, n) = batch.map_or((0, 1), |(s, n)| (count(c.int(s)), count(c.int(n))));
            let mut out = Vec::with_capacity(rows * cols * n);
            for b in 0..n {
                for j in 0..cols {
                    out.extend((0..rows).map(|i| b * stride + i + j * ld));
                }
            }
            out
        }
        Shape::Packed(_) => (0..c.span(shape, name).unwrap_or(0) as usize).collect(),
    }
}

/// Whether element `(i, j)` is in the `uplo` triangle (0 lower, 1 upper).
fn in_tri(uplo: i64, i: usize, j: usize) -> bool {
    if uplo == 0 {
        i >= j
    } else {
        i <= j
    }
}

/// Where the reference reads and writes a matrix: the index of `(i, j)` in its storage.
#[derive(Clone, Copy)]
enum Store {
    Full { ld: usize },
    Band { kl: usize, ku: usize, ld: usize },
    Packed { upper: bool, n: usize },
}

impl Store {
    fn at(self, i: usize, j: usize) -> Option<usize> {
        match self {
            Store::Full { ld } => Some(i + j * ld),
            Store::Band { kl, ku, ld } => (i + ku >= j && i <= j + kl).then(|| ku + i - j + j * ld),
            Store::Packed { upper: true, n: _ } => (i <= j).then(|| i + j * (j + 1) / 2),
            Store::Packed { upper: false, n } => (i >= j).then(|| i + (2 * n - j - 1) * j / 2),
        }
    }
}

/// A call's operands as elements of `T`, by name.
struct Frame<'c, T: Num> {
    c: &'c Call,
    batch: usize,
    arrays: Vec<Vec<T>>,
    values: Vec<Vec<T>>,
}

impl<'c, T: Num> Frame<'c, T> {
    fn new(c: &'c Call, batch: usize, arrays: &[Vec<u8>], values: &[Vec<u8>]) -> Self {
        let int = |w: &[u8]| T::real(T::R::f(i32::from_le_bytes(w.try_into().unwrap()) as f64));
        let arrays = c
            .entry
            .params
            .iter()
            .filter(|p| is_array(p))
            .zip(arrays)
            .map(|(p, b)| match p {
                Param::Ints(..) => b.chunks_exact(4).map(int).collect(),
                _ => b.chunks_exact(T::W).map(T::read).collect(),
            })
            .collect();
        let kinds = c.entry.params.iter().filter_map(|p| if let Param::Value(_, k, ..) = p { Some(*k) } else { None });
        let values = values
            .iter()
            .zip(kinds)
            .map(|(b, k)| match k {
                Kind::Elem => b.chunks_exact(T::W).map(T::read).collect(),
                Kind::Real => b.chunks_exact(T::R::W).map(|w| T::real(T::R::read(w))).collect(),
                Kind::Index if c.ilp64 => b.chunks_exact(8).map(|w| T::real(T::R::f(i64::from_le_bytes(w.try_into().unwrap()) as f64))).collect(),
                Kind::Index => b.chunks_exact(4).map(|w| T::real(T::R::f(i32::from_le_bytes(w.try_into().unwrap()) as f64))).collect(),
            })
            .collect();
        Frame { c, batch, arrays, values }
    }

    /// Writes the outputs back: each element an output array addresses, and each output value.
    fn finish(self, arrays: &mut [Vec<u8>], values: &mut [Vec<u8>]) {
        let mut ai = 0;
        let mut vi = 0;
        for p in self.c.entry.params {
            match *p {
                Param::Array(name, io, shape) | Param::Batch(name, io, shape) => {
                    if io != Io::In {
                        for i in addressed(self.c, shape, name) {
                            self.arrays[ai][i].write(&mut arrays[ai][i * T::W..]);
                        }
                    }
                    ai += 1;
                }
                Param::Ints(_, io, _) => {
                    if io != Io::In {
                        for (i, v) in self.arrays[ai].iter().enumerate() {
                            arrays[ai][i * 4..i * 4 + 4].copy_from_slice(&(v.re().to_f64() as i32).to_le_bytes());
                        }
                    }
                    ai += 1;
                }
                Param::Value(_, kind, io, _) => {
                    if io != Io::In {
                        let out = &mut values[vi];
                        for (i, v) in self.values[vi].iter().enumerate() {
                            match kind {
                                Kind::Elem => v.write(&mut out[i * T::W..]),
                                Kind::Real => v.re().write(&mut out[i * T::R::W..]),
                                Kind::Index if self.c.ilp64 => out[i * 8..i * 8 + 8].copy_from_slice(&(v.re().to_f64() as i64).to_le_bytes()),
                                Kind::Index => out[i * 4..i * 4 + 4].copy_from_slice(&(v.re().to_f64() as i32).to_le_bytes()),
                            }
                        }
                    }
                    vi += 1;
                }
                _ => {}
            }
        }
    }

    fn int(&self, name: &str) -> usize {
        self.c.int(name) as usize
    }

    fn array(&self, name: &str) -> usize {
        let arrays = self.c.entry.params.iter().filter(|p| is_array(p));
        arrays.enumerate().find(|(_, p)| p.name() == name).map(|(i, _)| i).expect("an array of the entry")
    }

    fn value_index(&self, name: &str) -> usize {
        let values = self.c.entry.params.iter().filter(|p| matches!(p, Param::Value(..)));
        values.enumerate().find(|(_, p)| p.name() == name).map(|(i, _)| i).expect("a value of the entry")
    }

    fn value(&self, name: &str) -> T {
        self.values[self.value_index(name)][0]
    }

    fn set_value(&mut self, name: &str, v: T) {
        let i = self.value_index(name);
        self.values[i][0] = v;
    }

    /// Vector `name`'s elements (`len` of them, its increment apart), copied out.
    fn vector(&self, name: &str, len: usize) -> Vec<T> {
        let inc = self.c.int(&format!("inc{name}")) as usize;
        let a = &self.arrays[self.array(name)];
        (0..len).map(|i| a[i * inc]).collect()
    }

    fn set_vector(&mut self, name: &str, v: &[T]) {
        let inc = self.c.int(&format!("inc{name}")) as usize;
        let i = self.array(name);
        for (k, x) in v.iter().enumerate() {
            self.arrays[i][k * inc] = *x;
        }
    }

    /// Matrix `name` as a dense `rows`×`cols` column-major matrix read through `store` (what
    /// it does not store is 0).
    fn dense(&self, name: &str, store: Store, rows: usize, cols: usize) -> Vec<T> {
        let a = &self.arrays[self.array(name)];
        let mut out = vec![T::default(); rows * cols];
        for j in 0..cols {
            for i in 0..rows {
                if let Some(k) = store.at(i, j) {
                    out[i + j * rows] = a[k];
                }
            }
        }
        out
    }

    fn full(&self, ld: &str) -> Store {
        Store::Full { ld: self.int(ld) }
    }

    fn store_of(&self, a: &str) -> Store {
        match self.c.entry.routine {
            Routine::Gbmv => Store::Band { kl: self.int("kl"), ku: self.int("ku"), ld: self.int("lda") },
            Routine::Sbmv | Routine::Hbmv | Routine::Tbmv | Routine::Tbsv => {
                let k = self.int("k");
                if self.c.int("uplo") == 1 {
                    Store::Band { kl: 0, ku: k, ld: self.int("lda") }
                } else {
                    Store::Band { kl: k, ku: 0, ld: self.int("lda") }
                }
            }
            _ if a == "AP" => Store::Packed { upper: self.c.int("uplo") == 1, n: self.int("n") },
            _ => self.full(&format!("ld{}", a.to_lowercase())),
        }
    }

    /// A symmetric (or Hermitian) n×n matrix from the `uplo` triangle of its storage.
    fn symmetric(&self, name: &str, n: usize, hermitian: bool) -> Vec<T> {
        let (store, uplo) = (self.store_of(name), self.c.int("uplo"));
        let stored = self.dense(name, store, n, n);
        let mut out = vec![T::default(); n * n];
        for j in 0..n {
            for i in 0..n {
                out[i + j * n] = if i == j && hermitian {
                    T::real(stored[i + i * n].re())
                } else if in_tri(uplo, i, j) {
                    stored[i + j * n]
                } else if hermitian {
                    stored[j + i * n].conj()
                } else {
                    stored[j + i * n]
                };
            }
        }
        out
    }

    /// op(T) of a triangular n×n matrix from its `uplo` triangle (a unit diagonal where `diag` says).
    fn triangular(&self, name: &str, n: usize, trans: i64) -> Vec<T> {
        let (store, uplo, unit) = (self.store_of(name), self.c.int("uplo"), self.c.int("diag") == 1);
        let stored = self.dense(name, store, n, n);
        let tri = |i: usize, j: usize| {
            if !in_tri(uplo, i, j) {
                T::default()
            } else if i == j && unit {
                T::one()
            } else {
                stored[i + j * n]
            }
        };
        op_matrix(n, n, trans, tri)
    }

    /// Writes dense `v` (rows×cols) into matrix `name`'s storage where `keep(i, j)`.
    fn store_dense(&mut self, name: &str, store: Store, rows: usize, cols: usize, v: &[T], keep: impl Fn(usize, usize) -> bool) {
        let a = self.array(name);
        for j in 0..cols {
            for i in 0..rows {
                if let (true, Some(k)) = (keep(i, j), store.at(i, j)) {
                    self.arrays[a][k] = v[i + j * rows];
                }
            }
        }
    }

    fn run(mut self, arrays: &mut [Vec<u8>], values: &mut [Vec<u8>]) {
        self.compute();
        self.finish(arrays, values);
    }

    fn compute(&mut self) {
        use Routine::*;
        let c = self.c;
        let n = c.int("n").max(0) as usize;
        let m = c.int("m").max(0) as usize;
        match c.entry.routine {
            Amax | Amin => {
                let x = self.vector("x", n);
                let mut best: Option<(usize, T::R)> = None;
                for (i, v) in x.iter().enumerate() {
                    let a = v.abs1();
                    let better = match best {
                        None => true,
                        Some((_, b)) => (c.entry.routine == Amax && a > b) || (c.entry.routine == Amin && a < b),
                    };
                    if better {
                        best = Some((i, a));
                    }
                }
                self.set_value("result", T::real(T::R::f(best.map_or(0, |(i, _)| i + 1) as f64)));
            }
            Asum => {
                let s = self.vector("x", n).iter().fold(T::R::default(), |s, v| s + v.abs1());
                self.set_value("result", T::real(s));
            }
            Nrm2 => {
                let s = self.vector("x", n).iter().fold(T::R::default(), |s, v| s + v.norm2());
                self.set_value("result", T::real(s.sqrt()));
            }
            Axpy => {
                let (a, x, y) = (self.value("alpha"), self.vector("x", n), self.vector("y", n));
                let out: Vec<T> = x.iter().zip(&y).map(|(x, y)| a * *x + *y).collect();
                self.set_vector("y", &out);
            }
            Copy => {
                let x = self.vector("x", n);
                self.set_vector("y", &x);
            }
            Dot | Dotc => {
                let (x, y) = (self.vector("x", n), self.vector("y", n));
                let conj = c.entry.routine == Dotc;
                let s = x.iter().zip(&y).fold(T::default(), |s, (x, y)| s + if conj { x.conj() } else { *x } * *y);
                self.set_value("result", s);
            }
            Rot => {
                let (cs, s) = (self.value("c"), self.value("s"));
                let (x, y) = (self.vector("x", n), self.vector("y", n));
                let nx: Vec<T> = x.iter().zip(&y).map(|(x, y)| cs * *x + s * *y).collect();
                let ny: Vec<T> = x.iter().zip(&y).map(|(x, y)| cs * *y - s.conj() * *x).collect();
                self.set_vector("x", &nx);
                self.set_vector("y", &ny);
            }
            Rotg => self.rotg(),
            Rotm => {
                let p: Vec<T::R> = self.values[self.value_index("param")].iter().map(|v| v.re()).collect();
                let flag = p[0].to_f64();
                let one = T::R::f(1.0);
                let (h11, h21, h12, h22) = match flag as i64 {
                    -1 => (p[1], p[2], p[3], p[4]),
                    0 => (one, p[2], p[3], one),
                    1 => (p[1], -one, one, p[4]),
                    _ => return,
                };
                let (x, y) = (self.vector("x", n), self.vector("y", n));
                let r = |v: T::R| T::real(v);
                let nx: Vec<T> = x.iter().zip(&y).map(|(x, y)| r(h11) * *x + r(h12) * *y).collect();
                let ny: Vec<T> = x.iter().zip(&y).map(|(x, y)| r(h21) * *x + r(h22) * *y).collect();
                self.set_vector("x", &nx);
                self.set_vector("y", &ny);
            }
            Rotmg => self.rotmg(),
            Scal => {
                let a = self.value("alpha");
                let x: Vec<T> = self.vector("x", n).into_iter().map(|v| a * v).collect();
                self.set_vector("x", &x);
            }
            Swap => {
                let (x, y) = (self.vector("x", n), self.vector("y", n));
                self.set_vector("x", &y);
                self.set_vector("y", &x);
            }
            // BLAS's quick return: an empty A leaves y as it was, not β·y.
            Gemv | Gbmv if m == 0 || n == 0 => {}
            Gemv | Gbmv => {
                let trans = c.int("trans");
                let a = self.dense("A", self.store_of("A"), m, n);
                let (r, k) = if trans == 0 { (m, n) } else { (n, m) };
                let op = op_matrix(r, k, trans, |i, j| a[i + j * m]);
                self.mv("y", r, k, &op, "x");
            }
            Symv | Hemv | Sbmv | Hbmv | Spmv | Hpmv => {
                let a = self.symmetric(if matches!(c.entry.routine, Spmv | Hpmv) { "AP" } else { "A" }, n, matches!(c.entry.routine, Hemv | Hbmv | Hpmv));
                self.mv("y", n, n, &a, "x");
            }
            Ger | Gerc => {
                let (a, x, y) = (self.value("alpha"), self.vector("x", m), self.vector("y", n));
                let store = self.full("lda");
                let mut d = self.dense("A", store, m, n);
                for j in 0..n {
                    let yj = if c.entry.routine == Gerc { y[j].conj() } else { y[j] };
                    for i in 0..m {
                        d[i + j * m] = d[i + j * m] + a * x[i] * yj;
                    }
                }
                self.store_dense("A", store, m, n, &d, |_, _| true);
            }
            Syr | Her | Spr | Hpr | Syr2 | Her2 | Spr2 | Hpr2 => {
                let r = c.entry.routine;
                let herm = matches!(r, Her | Hpr | Her2 | Hpr2);
                let two = matches!(r, Syr2 | Her2 | Spr2 | Hpr2);
                let name = if matches!(r, Spr | Hpr | Spr2 | Hpr2) { "AP" } else { "A" };
                let (a, x) = (self.value("alpha"), self.vector("x", n));
                let y = if two { self.vector("y", n) } else { vec![] };
                let (store, uplo) = (self.store_of(name), c.int("uplo"));
                let mut d = self.dense(name, store, n, n);
                let cj = |v: T| if herm { v.conj() } else { v };
                for j in 0..n {
                    for i in 0..n {
                        if !in_tri(uplo, i, j) {
                            continue;
                        }
                        let mut add = a * x[i] * cj(x[j]);
                        if two {
                            add = a * x[i] * cj(y[j]) + cj(a) * y[i] * cj(x[j]);
                        }
                        let v = d[i + j * n] + add;
                        d[i + j * n] = if herm && i == j { T::real(v.re()) } else { v };
                    }
                }
                self.store_dense(name, store, n, n, &d, |i, j| in_tri(uplo, i, j));
            }
            Trmv | Tbmv | Tpmv => {
                let t = self.triangular(if c.entry.routine == Tpmv { "AP" } else { "A" }, n, c.int("trans"));
                let x = self.vector("x", n);
                let out: Vec<T> = (0..n).map(|i| (0..n).fold(T::default(), |s, j| s + t[i + j * n] * x[j])).collect();
                self.set_vector("x", &out);
            }
            Trsv | Tbsv | Tpsv => {
                let trans = c.int("trans");
                let t = self.triangular(if c.entry.routine == Tpsv { "AP" } else { "A" }, n, trans);
                let lower = (c.int("uplo") == 0) == (trans == 0);
                let mut x = self.vector("x", n);
                solve(&t, n, lower, &mut x);
                self.set_vector("x", &x);
            }
            Gemm | GemmBatched => self.gemm(0),
            GemmStridedBatched => {
                for b in 0..c.int("batchCount").max(0) as usize {
                    self.gemm(b);
                }
            }
            Symm | Hemm => {
                let left = c.int("side") == 0;
                let ka = if left { m } else { n };
                let a = self.symmetric("A", ka, c.entry.routine == Hemm);
                let b = self.dense("B", self.full("ldb"), m, n);
                let (alpha, beta) = (self.value("alpha"), self.value("beta"));
                let store = self.full("ldc");
                let mut cm = self.dense("C", store, m, n);
                for j in 0..n {
                    for i in 0..m {
                        let s = if left {
                            (0..m).fold(T::default(), |s, l| s + a[i + l * m] * b[l + j * m])
                        } else {
                            (0..n).fold(T::default(), |s, l| s + b[i + l * m] * a[l + j * n])
                        };
                        cm[i + j * m] = scaled(alpha, s, beta, cm[i + j * m]);
                    }
                }
                self.store_dense("C", store, m, n, &cm, |_, _| true);
            }
            Syrk | Herk | Syr2k | Her2k | Syrkx | Herkx => self.rank_k(),
            Trmm | Trsm | TrsmBatched => {
                let (left, trans) = (c.int("side") == 0, c.int("trans"));
                let ka = if left { m } else { n };
                let t = self.triangular("A", ka, trans);
                let alpha = self.value("alpha");
                let b = self.dense("B", self.full("ldb"), m, n);
                let mut out = vec![T::default(); m * n];
                if c.entry.routine == Trmm {
                    for j in 0..n {
                        for i in 0..m {
                            let s = if left {
                                (0..m).fold(T::default(), |s, l| s + t[i + l * m] * b[l + j * m])
                            } else {
                                (0..n).fold(T::default(), |s, l| s + b[i + l * m] * t[l + j * n])
                            };
                            out[i + j * m] = alpha * s;
                        }
                    }
                    let store = self.full("ldc");
                    self.store_dense("C", store, m, n, &out, |_, _| true);
                } else {
                    // op(A) is lower where A's triangle and the transpose agree.
                    let lower = (c.int("uplo") == 0) == (trans == 0);
                    if left {
                        for j in 0..n {
                            let mut col: Vec<T> = (0..m).map(|i| alpha * b[i + j * m]).collect();
                            solve(&t, m, lower, &mut col);
                            out[j * m..j * m + m].copy_from_slice(&col);
                        }
                    } else {
                        // X·op(A) = alpha·B is op(A)ᵀ·Xᵀ = alpha·Bᵀ, row by row.
                        let tt: Vec<T> = (0..n * n).map(|k| t[(k / n) + (k % n) * n]).collect();
                        for i in 0..m {
                            let mut row: Vec<T> = (0..n).map(|j| alpha * b[i + j * m]).collect();
                            solve(&tt, n, !lower, &mut row);
                            for (j, v) in row.into_iter().enumerate() {
                                out[i + j * m] = v;
                            }
                        }
                    }
                    let store = self.full("ldb");
                    self.store_dense("B", store, m, n, &out, |_, _| true);
                }
            }
            Geam => {
                let (alpha, beta) = (self.value("alpha"), self.value("beta"));
                let op = |name: &str, t: &str| {
                    let trans = c.int(t);
                    let (r, k) = if trans == 0 { (m, n) } else { (n, m) };
                    let d = self.dense(name, self.full(&format!("ld{}", name.to_lowercase())), r, k);
                    op_matrix(m, n, trans, |i, j| d[i + j * r])
                };
                let a = if alpha.is_zero() { vec![T::default(); m * n] } else { op("A", "transa") };
                let b = if beta.is_zero() { vec![T::default(); m * n] } else { op("B", "transb") };
                let out: Vec<T> = a.iter().zip(&b).map(|(a, b)| alpha * *a + beta * *b).collect();
                let store = self.full("ldc");
                self.store_dense("C", store, m, n, &out, |_, _| true);
            }
            Dgmm => {
                let left = c.int("mode") == 0;
                let x = self.vector("x", if left { m } else { n });
                let a = self.dense("A", self.full("lda"), m, n);
                let out: Vec<T> = (0..m * n).map(|k| a[k] * x[if left { k % m } else { k / m }]).collect();
                let store = self.full("ldc");
                self.store_dense("C", store, m, n, &out, |_, _| true);
            }
            GetrfBatched | MatinvBatched => {
                let (lda, b) = (self.int("lda"), self.batch);
                let mut a = self.dense("A", self.full("lda"), n, n);
                let (piv, info) = lu(&mut a, n);
                let ii = self.array("info");
                self.arrays[ii][b] = T::real(T::R::f(info as f64));
                if c.entry.routine == GetrfBatched {
                    self.store_dense("A", Store::Full { ld: lda }, n, n, &a, |_, _| true);
                    let ip = self.array("P");
                    for (j, p) in piv.iter().enumerate() {
                        self.arrays[ip][b * n + j] = T::real(T::R::f(*p as f64));
                    }
                } else {
                    let inv = lu_solve(&a, &piv, n, 0, &identity(n), n);
                    self.store_dense("Ainv", Store::Full { ld: self.int("lda_inv") }, n, n, &inv, |_, _| true);
                }
            }
            GetrsBatched | GetriBatched => {
                let b = self.batch;
                let a = self.dense("A", self.full("lda"), n, n);
                let pname = if c.entry.routine == GetrsBatched { "devIpiv" } else { "P" };
                let ip = self.array(pname);
                let piv: Vec<usize> = (0..n).map(|j| self.arrays[ip][b * n + j].re().to_f64() as usize).collect();
                if c.entry.routine == GetrsBatched {
                    let nrhs = self.int("nrhs");
                    let rhs = self.dense("B", self.full("ldb"), n, nrhs);
                    let x = lu_solve(&a, &piv, n, c.int("trans"), &rhs, nrhs);
                    self.store_dense("B", Store::Full { ld: self.int("ldb") }, n, nrhs, &x, |_, _| true);
                } else {
                    let inv = lu_solve(&a, &piv, n, 0, &identity(n), n);
                    self.store_dense("C", Store::Full { ld: self.int("ldc") }, n, n, &inv, |_, _| true);
                    let ii = self.array("info");
                    let singular = (0..n).find(|&i| a[i + i * n].is_zero()).map_or(0, |i| i + 1);
                    self.arrays[ii][b] = T::real(T::R::f(singular as f64));
                }
            }
            GeqrfBatched | GelsBatched => {
                let mut a = self.dense("A", self.full("lda"), m, n);
                let tau = qr(&mut a, m, n);
                self.store_dense("A", Store::Full { ld: self.int("lda") }, m, n, &a, |_, _| true);
                if c.entry.routine == GeqrfBatched {
                    let it = self.array("TauArray");
                    self.arrays[it][..tau.len()].copy_from_slice(&tau);
                } else {
                    let nrhs = self.int("nrhs");
                    let mut x = self.dense("C", self.full("ldc"), m, nrhs);
                    // Qᴴ·C, then R·X = (Qᴴ·C)[..n]; rows n.. keep the residual's components.
                    for (j, t) in tau.iter().enumerate() {
                        let v: Vec<T> = (0..m).map(|i| if i < j { T::default() } else if i == j { T::one() } else { a[i + j * m] }).collect();
                        for k in 0..nrhs {
                            let w = (j..m).fold(T::default(), |s, i| s + v[i].conj() * x[i + k * m]);
                            for i in j..m {
                                x[i + k * m] = x[i + k * m] - t.conj() * v[i] * w;
                            }
                        }
                    }
                    let r: Vec<T> = (0..n * n).map(|k| if k % n <= k / n { a[k % n + (k / n) * m] } else { T::default() }).collect();
                    let singular = (0..n).find(|&i| r[i + i * n].is_zero()).map_or(0, |i| i + 1);
                    if singular == 0 {
                        for k in 0..nrhs {
                            let mut col: Vec<T> = x[k * m..k * m + n].to_vec();
                            solve(&r, n, false, &mut col);
                            x[k * m..k * m + n].copy_from_slice(&col);
                        }
                    }
                    self.store_dense("C", Store::Full { ld: self.int("ldc") }, m, nrhs, &x, |_, _| true);
                    let ii = self.array("devInfoArray");
                    self.arrays[ii][self.batch] = T::real(T::R::f(singular as f64));
                }
            }
            Tpttr | Trttp => {
                let uplo = c.int("uplo");
                let (from, to) = if c.entry.routine == Tpttr { ("AP", "A") } else { ("A", "AP") };
                let d = self.dense(from, self.store_of(from), n, n);
                let store = self.store_of(to);
                self.store_dense(to, store, n, n, &d, |i, j| in_tri(uplo, i, j));
            }
        }
    }

    /// `y = alpha·M·x + beta·y` for a dense rows×cols M (y not read where beta is 0).
    fn mv(&mut self, y: &str, rows: usize, cols: usize, mat: &[T], x: &str) {
        let (alpha, beta) = (self.value("alpha"), self.value("beta"));
        let (xv, yv) = (self.vector(x, cols), self.vector(y, rows));
        let out: Vec<T> =
            (0..rows).map(|i| scaled(alpha, (0..cols).fold(T::default(), |s, j| s + mat[i + j * rows] * xv[j]), beta, yv[i])).collect();
        self.set_vector(y, &out);
    }

    /// One product of a (strided-batched) gemm: batch `b`.
    fn gemm(&mut self, b: usize) {
        let c = self.c;
        let (m, n, k) = (self.int("m"), self.int("n"), self.int("k"));
        let (ta, tb) = (c.int("transa"), c.int("transb"));
        let batched = c.entry.routine == Routine::GemmStridedBatched;
        let at = |name: &str| if batched { b * c.int(&format!("stride{name}")) as usize } else { 0 };
        let (oa, ob, oc) = (at("A"), at("B"), at("C"));
        let (lda, ldb, ldc) = (self.int("lda"), self.int("ldb"), self.int("ldc"));
        let (alpha, beta) = (self.value("alpha"), self.value("beta"));
        let (ia, ib, ic) = (self.array("A"), self.array("B"), self.array("C"));
        let get = |a: &[T], off: usize, ld: usize, t: i64, i: usize, j: usize| -> T {
            match t {
                0 => a[off + i + j * ld],
                1 => a[off + j + i * ld],
                _ => a[off + j + i * ld].conj(),
            }
        };
        if m == 0 || n == 0 {
            return;
        }
        for j in 0..n {
            for i in 0..m {
                let s = (0..k).fold(T::default(), |s, l| {
                    s + get(&self.arrays[ia], oa, lda, ta, i, l) * get(&self.arrays[ib], ob, ldb, tb, l, j)
                });
                let ci = oc + i + j * ldc;
                self.arrays[ic][ci] = scaled(alpha, s, beta, self.arrays[ic][ci]);
            }
        }
    }

    /// syrk, herk, syr2k, her2k, syrkx and herkx: the `uplo` triangle of C.
    fn rank_k(&mut self) {
        use Routine::*;
        let c = self.c;
        let r = c.entry.routine;
        let (n, k, trans, uplo) = (self.int("n"), self.int("k"), c.int("trans"), c.int("uplo"));
        let herm = matches!(r, Herk | Her2k | Herkx);
        let (rows, cols) = if trans == 0 { (n, k) } else { (k, n) };
        let op = |name: &str| {
            let d = self.dense(name, self.full(&format!("ld{}", name.to_lowercase())), rows, cols);
            // op(A) is n×k: A, or Aᵀ (syrk) / Aᴴ (herk).
            op_matrix(n, k, if trans == 0 { 0 } else if herm { 2 } else { 1 }, |i, j| d[i + j * rows])
        };
        let a = op("A");
        let b = if matches!(r, Syrk | Herk) { a.clone() } else { op("B") };
        let (alpha, beta) = (self.value("alpha"), self.value("beta"));
        let cj = |v: T| if herm { v.conj() } else { v };
        let store = self.full("ldc");
        let mut cm = self.dense("C", store, n, n);
        for j in 0..n {
            for i in 0..n {
                if !in_tri(uplo, i, j) {
                    continue;
                }
                let dot = |x: &[T], y: &[T]| (0..k).fold(T::default(), |s, l| s + x[i + l * n] * cj(y[j + l * n]));
                let s = match r {
                    Syr2k => alpha * (dot(&a, &b) + dot(&b, &a)),
                    Her2k => alpha * dot(&a, &b) + alpha.conj() * dot(&b, &a),
                    _ => alpha * dot(&a, &b),
                };
                let v = if beta.is_zero() { s } else { s + beta * cm[i + j * n] };
                cm[i + j * n] = if herm && i == j { T::real(v.re()) } else { v };
            }
        }
        self.store_dense("C", store, n, n, &cm, |i, j| in_tri(uplo, i, j));
    }

    /// The reference BLAS's rotg: real (srotg/drotg) and complex (crotg/zrotg).
    fn rotg(&mut self) {
        let (a, b) = (self.value("a"), self.value("b"));
        let zero = T::R::default();
        let one = T::R::f(1.0);
        if T::W == T::R::W {
            let (ra, rb) = (a.re(), b.re());
            let roe = if ra.abs() > rb.abs() { ra } else { rb };
            let scale = ra.abs() + rb.abs();
            let (c, s, r, z);
            if scale == zero {
                (c, s, r, z) = (one, zero, zero, zero);
            } else {
                let (x, y) = (ra / scale, rb / scale);
                let mut rr = scale * (x * x + y * y).sqrt();
                if roe < zero {
                    rr = -rr;
                }
                c = ra / rr;
                s = rb / rr;
                r = rr;
                z = if ra.abs() > rb.abs() {
                    s
                } else if c != zero {
                    one / c
                } else {
                    one
                };
            }
            self.set_value("a", T::real(r));
            self.set_value("b", T::real(z));
            self.set_value("c", T::real(c));
            self.set_value("s", T::real(s));
        } else {
            let abs = |v: T| v.norm2().sqrt();
            if abs(a) == zero {
                self.set_value("c", T::real(zero));
                self.set_value("s", T::one());
                self.set_value("a", b);
            } else {
                let scale = abs(a) + abs(b);
                let (x, y) = (abs(a) / scale, abs(b) / scale);
                let norm = scale * (x * x + y * y).sqrt();
                let alpha = a / T::real(abs(a));
                self.set_value("c", T::real(abs(a) / norm));
                self.set_value("s", alpha * b.conj() / T::real(norm));
                self.set_value("a", alpha * T::real(norm));
            }
        }
    }

    /// The reference BLAS's rotmg (srotmg/drotmg).
    fn rotmg(&mut self) {
        let r = |name: &str| self.value(name).re();
        let (mut d1, mut d2, mut x1, y1) = (r("d1"), r("d2"), r("x1"), r("y1"));
        let f = T::R::f;
        let (zero, one) = (f(0.0), f(1.0));
        let (gam, gamsq, rgamsq) = (f(4096.0), f(16777216.0), f(5.9604645e-8));
        let (mut h11, mut h12, mut h21, mut h22) = (zero, zero, zero, zero);
        let mut flag;
        if d1 < zero {
            flag = f(-1.0);
            (d1, d2, x1) = (zero, zero, zero);
        } else {
            let p2 = d2 * y1;
            if p2 == zero {
                let i = self.value_index("param");
                self.values[i][0] = T::real(f(-2.0));
                return;
            }
            let p1 = d1 * x1;
            let q2 = p2 * y1;
            let q1 = p1 * x1;
            if q1.abs() > q2.abs() {
                h21 = -y1 / x1;
                h12 = p2 / p1;
                let u = one - h12 * h21;
                if u > zero {
                    flag = zero;
                    d1 = d1 / u;
                    d2 = d2 / u;
                    x1 = x1 * u;
                } else {
                    flag = f(-1.0);
                    (h11, h12, h21, h22) = (zero, zero, zero, zero);
                    (d1, d2, x1) = (zero, zero, zero);
                }
            } else if q2 < zero {
                flag = f(-1.0);
                (h11, h12, h21, h22) = (zero, zero, zero, zero);
                (d1, d2, x1) = (zero, zero, zero);
            } else {
                flag = one;
                h11 = p1 / p2;
                h22 = x1 / y1;
                let u = one + h11 * h22;
                let t = d2 / u;
                d2 = d1 / u;
                d1 = t;
                x1 = y1 * u;
            }
            let fix = |flag: &mut T::R, h11: &mut T::R, h12: &mut T::R, h21: &mut T::R, h22: &mut T::R| {
                if *flag == zero {
                    (*h11, *h22) = (one, one);
                } else {
                    (*h21, *h12) = (f(-1.0), one);
                }
                *flag = f(-1.0);
            };
            if d1 != zero {
                while d1 <= rgamsq || d1 >= gamsq {
                    fix(&mut flag, &mut h11, &mut h12, &mut h21, &mut h22);
                    if d1 <= rgamsq {
                        d1 = d1 * gam * gam;
                        x1 = x1 / gam;
                        h11 = h11 / gam;
                        h12 = h12 / gam;
                    } else {
                        d1 = d1 / (gam * gam);
                        x1 = x1 * gam;
                        h11 = h11 * gam;
                        h12 = h12 * gam;
                    }
                }
            }
            if d2 != zero {
                while d2.abs() <= rgamsq || d2.abs() >= gamsq {
                    fix(&mut flag, &mut h11, &mut h12, &mut h21, &mut h22);
                    if d2.abs() <= rgamsq {
                        d2 = d2 * gam * gam;
                        h21 = h21 / gam;
                        h22 = h22 / gam;
                    } else {
                        d2 = d2 / (gam * gam);
                        h21 = h21 * gam;
                        h22 = h22 * gam;
                    }
                }
            }
        }
        let i = self.value_index("param");
        let p = &mut self.values[i];
        let fl = flag.to_f64();
        if fl < 0.0 {
            (p[1], p[2], p[3], p[4]) = (T::real(h11), T::real(h21), T::real(h12), T::real(h22));
        } else if fl == 0.0 {
            (p[2], p[3]) = (T::real(h21), T::real(h12));
        } else {
            (p[1], p[4]) = (T::real(h11), T::real(h22));
        }
        p[0] = T::real(flag);
        self.set_value("d1", T::real(d1));
        self.set_value("d2", T::real(d2));
        self.set_value("x1", T::real(x1));
    }
}

/// LAPACK's getf2 on a dense n×n column-major matrix, in place: L (unit, below) and U, the
/// 1-based pivots, and info (the first zero pivot, 1-based, or 0).
fn lu<T: Num>(a: &mut [T], n: usize) -> (Vec<usize>, usize) {
    let mut piv = vec![0; n];
    let mut info = 0;
    for j in 0..n {
        let mut p = j;
        for i in j + 1..n {
            if a[i + j * n].abs1() > a[p + j * n].abs1() {
                p = i;
            }
        }
        piv[j] = p + 1;
        if !a[p + j * n].is_zero() {
            if p != j {
                for k in 0..n {
                    a.swap(j + k * n, p + k * n);
                }
            }
            let d = a[j + j * n];
            for i in j + 1..n {
                a[i + j * n] = a[i + j * n] / d;
            }
        } else if info == 0 {
            info = j + 1;
        }
        for k in j + 1..n {
            for i in j + 1..n {
                a[i + k * n] = a[i + k * n] - a[i + j * n] * a[j + k * n];
            }
        }
    }
    (piv, info)
}

/// LAPACK's geqr2 on a dense m×n column-major matrix, in place: R above the diagonal and the
/// reflectors' vectors below it (their first element 1, implied), and the reflectors' taus
/// (H = I − tau·v·vᴴ, Qᴴ·A = R with Qᴴ = H(k)ᴴ…H(1)ᴴ as zgeqr2 applies them).
fn qr<T: Num>(a: &mut [T], m: usize, n: usize) -> Vec<T> {
    let k = m.min(n);
    let mut tau = vec![T::default(); k];
    for j in 0..k {
        // zlarfg: beta = −sign(re α)·‖(α, x)‖, tau = (beta − α)/beta, v = x/(α − beta).
        let alpha = a[j + j * m];
        let xnorm2 = (j + 1..m).fold(T::R::default(), |s, i| s + a[i + j * m].norm2());
        if xnorm2 == T::R::default() && alpha.im() == T::R::default() {
            continue;
        }
        let norm = (alpha.norm2() + xnorm2).sqrt();
        let beta = if alpha.re() >= T::R::default() { -norm } else { norm };
        let b = T::real(beta);
        tau[j] = (b - alpha) / b;
        let scale = T::one() / (alpha - b);
        for i in j + 1..m {
            a[i + j * m] = a[i + j * m] * scale;
        }
        a[j + j * m] = b;
        // zlarf with conj(tau): A(j.., j+1..) −= conj(tau)·v·(vᴴ·A(j.., j+1..)).
        let v: Vec<T> = (0..m).map(|i| if i < j { T::default() } else if i == j { T::one() } else { a[i + j * m] }).collect();
        let t = tau[j].conj();
        for c in j + 1..n {
            let w = (j..m).fold(T::default(), |s, i| s + v[i].conj() * a[i + c * m]);
            for i in j..m {
                a[i + c * m] = a[i + c * m] - t * v[i] * w;
            }
        }
    }
    tau
}

fn identity<T: Num>(n: usize) -> Vec<T> {
    (0..n * n).map(|k| if k % n == k / n { T::one() } else { T::default() }).collect()
}

/// Solves op(A)·X = B (n×nrhs) from `lu`'s factors and pivots (LAPACK's getrs).
fn lu_solve<T: Num>(lu: &[T], piv: &[usize], n: usize, trans: i64, b: &[T], nrhs: usize) -> Vec<T> {
    let l = |i: usize, j: usize| if i == j { T::one() } else if i > j { lu[i + j * n] } else { T::default() };
    let u = |i: usize, j: usize| if i <= j { lu[i + j * n] } else { T::default() };
    let swap_rows = |x: &mut Vec<T>, order: &mut dyn Iterator<Item = usize>| {
        for i in order {
            let p = piv[i].saturating_sub(1).min(n - 1);
            for k in 0..nrhs {
                x.swap(i + k * n, p + k * n);
            }
        }
    };
    let mut x = b.to_vec();
    if trans == 0 {
        swap_rows(&mut x, &mut (0..n));
    }
    let (first, second) = if trans == 0 {
        (op_matrix(n, n, 0, l), op_matrix(n, n, 0, u))
    } else {
        (op_matrix(n, n, trans, u), op_matrix(n, n, trans, l))
    };
    for k in 0..nrhs {
        let col = &mut x[k * n..k * n + n];
        solve(&first, n, true, col);
        solve(&second, n, false, col);
    }
    if trans != 0 {
        swap_rows(&mut x, &mut (0..n).rev());
    }
    x
}

/// `alpha·s + beta·old`, `old` not read where beta is 0 (BLAS's rule: C may hold NaNs then).
fn scaled<T: Num>(alpha: T, s: T, beta: T, old: T) -> T {
    if beta.is_zero() {
        alpha * s
    } else {
        alpha * s + beta * old
    }
}

/// op(M) of an element function: `trans` 0 M (rows×cols), 1 Mᵀ, 2 Mᴴ (M then cols×rows).
fn op_matrix<T: Num>(rows: usize, cols: usize, trans: i64, m: impl Fn(usize, usize) -> T) -> Vec<T> {
    let mut out = vec![T::default(); rows * cols];
    for j in 0..cols {
        for i in 0..rows {
            out[i + j * rows] = match trans {
                0 => m(i, j),
                1 => m(j, i),
                _ => m(j, i).conj(),
            };
        }
    }
    out
}

/// Solves the triangular `t`·x = b in place (`lower`: forward substitution, else backward).
fn solve<T: Num>(t: &[T], n: usize, lower: bool, x: &mut [T]) {
    let order: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
    for &i in &order {
        let mut s = x[i];
        for j in 0..n {
            if j != i && ((lower && j < i) || (!lower && j > i)) {
                s = s - t[i + j * n] * x[j];
            }
        }
        x[i] = s / t[i + i * n];
    }
}
