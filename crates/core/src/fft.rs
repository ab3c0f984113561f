//! cuFFT plans (CuPy's `cupy.cuda.cufft.Plan1d` / `PlanNd`): a plan of a type, shape and batch,
//! made on a device with no work area of its own; its work area is memory the caller allocated
//! (CuPy's comes from the current allocator) and the plan keeps; each run is on a stream. Every
//! check is here: sizes, the memory each side needs for the type and batch, devices, alignment.
//! An Xt plan (`XtPlanNd`) is one whose spec names a precision (half and bfloat16 too); LTO
//! callbacks, CUDA C compiled here by NVRTC, are set before the backend makes the plan. Plans over
//! several devices are `fft_multi.rs`'s.

use crate::block::Block;
use crate::error::{Error, Result};
use crate::runtime;
use crate::stream::Stream;
use std::sync::{Arc, Mutex};

// The seam's trait and data (`ops/fft.rs`), named here for the layers above.
pub use crate::ops::fft::{xt_types, Callback, Direction, Exec, FftOps, FftPlanOps, FftType, Layout, PlanSpec, Precision};

/// A cuFFT plan of one device; destroyed when dropped (after the runs queued with it: the driver
/// keeps a plan's launched kernels, and the work area goes back to its allocator).
pub struct Plan {
    device: usize,
    spec: PlanSpec,
    ops: Box<dyn FftPlanOps>,
    /// The work area: held while the plan lives, so it is not reused under queued runs.
    work: Mutex<Option<Arc<Block>>>,
    /// The memory the callbacks are given as `callerInfo`, held while the plan lives.
    _caller_info: Vec<Arc<Block>>,
}

/// A load or store callback as CUDA C source (CuPy's `set_cufft_callbacks`, done the CUDA 12.6+
/// way): a `__device__` function `name` with cuFFT's LTO callback signature for the plan's type,
/// compiled to LTO-IR by NVRTC (`-dlto`) and linked into the plan's kernels by cuFFT.
pub struct CallbackSource {
    pub store: bool,
    pub name: String,
    pub source: String,
    /// Memory given to the callback as `callerInfo` (its address at this offset).
    pub caller_info: Option<(Arc<Block>, u64)>,
}

/// The bytes a work area is aligned to (cuFFT's own allocations are; pool blocks are 512).
pub const WORK_ALIGNMENT: u64 = 256;

impl Plan {
    /// Plans `spec` on `device` (cufftCreate, cufftSetAutoAllocation(0), cufftMakePlanMany64).
    pub fn new(device: usize, spec: PlanSpec) -> Result<Plan> {
        Plan::with_callbacks(device, spec, Vec::new())
    }

    /// [`Plan::new`] with LTO callbacks, at most one load and one store, set before the plan is
    /// made (`cufftXtSetJITCallback`). The simulator runs no CUDA C, so refuses them
    /// (`CUFFT_NOT_SUPPORTED`); half and bfloat16 plans take none.
    pub fn with_callbacks(device: usize, spec: PlanSpec, callbacks: Vec<CallbackSource>) -> Result<Plan> {
        spec.check()?;
        let rt = runtime()?;
        rt.ordinal(device as f64)?;
        let mut compiled = Vec::new();
        let mut keep = Vec::new();
        if !callbacks.is_empty() {
            for store in [false, true] {
                if callbacks.iter().filter(|c| c.store == store).count() > 1 {
                    return Err(Error::range(format!("a plan takes one {} callback at most", if store { "store" } else { "load" })));
                }
            }
            for c in &callbacks {
                let ident = c.name.chars().next().is_some_and(|f| f == '_' || f.is_ascii_alphabetic())
                    && c.name.chars().all(|ch| ch == '_' || ch.is_ascii_alphanumeric());
                if !ident {
                    return Err(Error::type_error(format!("a callback's name must be its __device__ function's name, got '{}'", c.name)));
                }
                if let Some((b, _)) = &c.caller_info {
                    if b.device() != device {
                        return Err(Error::cuda(
                            crate::Code::CUDA_ERROR_INVALID_VALUE,
                            format!("callerInfo is memory of device {}, the plan is of device {device}", b.device()),
                        ));
                    }
                }
            }
            if matches!(spec.precision(), Precision::Half | Precision::BFloat16) {
                return Err(Error::named("CUFFT_NOT_SUPPORTED", "cuFFT's LTO callbacks are for single and double precision plans"));
            }
            if !rt.info.compiled_kernels() {
                return Err(Error::named(
                    "CUFFT_NOT_SUPPORTED",
                    "the simulator runs no CUDA C, so cannot run cuFFT callbacks: run the plan without them, or on the GPU",
                ));
            }
            let props = crate::device::props(device)?;
            let arch = format!("{}{}", props.cc_major, props.cc_minor);
            let options = ["--relocatable-device-code=true".to_string()];
            for c in callbacks {
                let ltoir = crate::nvrtc::compile(&c.source, "cufft_callback.cu", &options, &[], &arch, crate::nvrtc::Target::Ltoir)?.image;
                let caller_info = match &c.caller_info {
                    Some((b, off)) => {
                        let (mem, at) = b.range(*off, 1, "callerInfo")?;
                        mem.ptr() + at
                    }
                    None => 0,
                };
                keep.extend(c.caller_info.map(|(b, _)| b));
                compiled.push(Callback { store: c.store, name: c.name, ltoir, caller_info });
            }
        }
        let ops = rt.backend.fft().plan(device, &spec, &compiled)?;
        Ok(Plan { device, spec, ops, work: Mutex::new(None), _caller_info: keep })
    }

    pub fn device(&self) -> usize {
        self.device
    }
    pub fn spec(&self) -> &PlanSpec {
        &self.spec
    }

    /// The bytes of work area a run needs.
    pub fn work_size(&self) -> u64 {
        self.ops.work_size()
    }

    /// Uses `size` bytes at `offset` of `block` as the work area, kept until the plan goes or
    /// another replaces it.
    pub fn set_work_area(&self, block: Arc<Block>, offset: u64) -> Result<()> {
        let need = self.work_size();
        if block.device() != self.device {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_INVALID_VALUE,
                format!("the work area is memory of device {}, the plan is of device {}", block.device(), self.device),
            ));
        }
        let (mem, at) = block.range(offset, need, "the work area")?;
        if need > 0 && (mem.ptr() + at) % WORK_ALIGNMENT != 0 {
            return Err(Error::named("CUFFT_UNALIGNED_DATA", format!("a work area must be aligned to {WORK_ALIGNMENT} bytes")));
        }
        if need > 0 {
            self.ops.set_work_area(mem.ops()?, at)?;
        }
        *self.work.lock().unwrap_or_else(|p| p.into_inner()) = Some(block);
        Ok(())
    }

    /// Whether a work area has been given (or none is needed).
    pub fn has_work_area(&self) -> bool {
        self.work_size() == 0 || self.work.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Runs the transform on `stream` from `in_off` bytes into `input` to `out_off` bytes into
    /// `output` (the same address: in place). A real-to-complex transform runs forward only, a
    /// complex-to-real one inverse only; neither direction scales.
    /// Captured into a graph, the graph keeps the plan (and so its work area) alive: its launches
    /// run the plan's kernels on that work area.
    pub fn exec(
        self: &Arc<Self>,
        stream: &Stream,
        input: &Block,
        in_off: u64,
        output: &Block,
        out_off: u64,
        direction: Direction,
    ) -> Result<()> {
        if let Some(only) = self.spec.ty.fixed_direction() {
            if direction != only {
                return Err(Error::range(format!(
                    "a {} plan runs {} only",
                    self.spec.ty.name(),
                    if only == Direction::Forward { "forward" } else { "inverse" }
                )));
            }
        }
        if stream.device() != self.device {
            return Err(Error::cuda(
                crate::Code::CUDA_ERROR_INVALID_VALUE,
                format!("the plan is of device {}, the stream of device {}", self.device, stream.device()),
            ));
        }
        for (b, what) in [(input, "input"), (output, "output")] {
            if b.device() != self.device {
                return Err(Error::cuda(
                    crate::Code::CUDA_ERROR_INVALID_VALUE,
                    format!("the {what} is memory of device {}, the plan is of device {}", b.device(), self.device),
                ));
            }
        }
        if !self.has_work_area() {
            return Err(Error::named(
                "CUFFT_NO_WORKSPACE",
                format!("the plan needs a work area of {} bytes: give it one with setWorkArea", self.work_size()),
            ));
        }
        let in_place = input.ptr().checked_add(in_off) == output.ptr().checked_add(out_off) && input.ptr() != 0;
        let [ein, eout] = self.spec.extents(in_place)?;
        let (im, io) = input.range(in_off, ein, &format!("the {} input", self.spec.ty.name()))?;
        let (om, oo) = output.range(out_off, eout, &format!("the {} output", self.spec.ty.name()))?;
        let (ia, oa) = (im.ptr() + io, om.ptr() + oo);
        for (side, (addr, what)) in [(ia, "input"), (oa, "output")].into_iter().enumerate() {
            let align = self.spec.element(side);
            if addr % align != 0 {
                return Err(Error::named(
                    "CUFFT_UNALIGNED_DATA",
                    format!("the {what} must be aligned to its {align}-byte elements (it starts at an address {} past that)", addr % align),
                ));
            }
        }
        if !in_place && overlaps(ia, ein, oa, eout) {
            return Err(Error::range("the input and output overlap without being the same memory: run in place (one address) or apart"));
        }
        stream.legacy_ok("an FFT")?;
        let x = Exec { in_off: io, out_off: oo, direction, in_place };
        self.ops.exec(stream.ops()?, &x, im.ops()?, om.ops()?)?;
        if stream.is_capturing()? {
            // Kept by every capture under way on the device (the driver does not say which one
            // this stream is part of): a graph may hold the plan a little longer, never too short.
            let plan: Arc<dyn std::any::Any + Send + Sync> = self.clone();
            crate::capture::keep_in_joined(self.device, |c| c.events.push(plan.clone()));
        }
        Ok(())
    }
}

/// Whether `[a, a + a_len)` and `[b, b + b_len)` share a byte (both of one device).
fn overlaps(a: u64, a_len: u64, b: u64, b_len: u64) -> bool {
    a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}
