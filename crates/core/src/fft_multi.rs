//! cuFFT plans over several devices (CuPy's `Plan1d(..., devices=[…])`, `cufftXtSetGPUs`): one
//! axis, c2c or z2z, the batch (or one transform's points) split between the devices. Like
//! CuPy's, the plan's buffers are the caller's — one a device from its allocator, and for one
//! transform a second set to put the permuted result back in order — and a run copies the input
//! from one device's memory into them, runs on the descriptor (`cufftXtExecDescriptor`), waits
//! for every device and copies the result out. Every check is here, for both backends.

use crate::block::Block;
use crate::error::{Error, Result};
use crate::fft::{Direction, FftType, PlanSpec, WORK_ALIGNMENT};
use crate::memory::DeviceMemory;
use crate::ops::fft::{shares, FftMultiOps, Part};
use crate::runtime;
use crate::stream::Stream;
use crate::Code;
use std::sync::{Arc, Mutex};

/// The most devices a plan spreads over (cuFFT's documented limit).
pub const MAX_DEVICES: usize = 16;

/// A range of a block, as the caller gave it: the block and the offset into it.
pub type Area = (Arc<Block>, u64);

/// The buffers a plan is given: one work area, one data buffer and (for one transform) one
/// scratch buffer a device, in the plan's order of devices.
struct Areas {
    _work: Vec<Area>,
    data: Vec<Area>,
    scratch: Vec<Area>,
}

/// A cuFFT plan over several devices; destroyed when dropped. Runs are synchronous (each waits
/// for the plan's devices), so nothing queued outlives it.
pub struct MultiPlan {
    devices: Vec<usize>,
    spec: PlanSpec,
    ops: Box<dyn FftMultiOps>,
    /// Also the lock that keeps two runs from sharing the buffers.
    areas: Mutex<Option<Areas>>,
}

fn invalid(msg: String) -> Error {
    Error::named("CUFFT_INVALID_VALUE", msg)
}

impl MultiPlan {
    /// Plans `batch` transforms of `n` points of `ty` (c2c or z2z) over `devices`: two to 16
    /// distinct ordinals; for one transform (`batch` 1) 2, 4, 8 or 16 of them and a power of 2
    /// of at least 64 points (128 on 8, 1024 on 16), as cuFFT and CuPy require; else at least
    /// one transform a device.
    pub fn new(devices: Vec<usize>, ty: FftType, n: u64, batch: u64) -> Result<MultiPlan> {
        if !matches!(ty, FftType::C2C | FftType::Z2Z) {
            return Err(Error::named(
                "CUFFT_INVALID_TYPE",
                format!("a plan over several devices is c2c or z2z (as CuPy's Plan1d), got '{}'", ty.name()),
            ));
        }
        let rt = runtime()?;
        for &d in &devices {
            rt.ordinal(d as f64)?;
        }
        let count = devices.len();
        if count < 2 {
            return Err(invalid(format!(
                "a plan over several devices needs two or more, got {count}: for one device make a plan without `devices`"
            )));
        }
        if count > MAX_DEVICES {
            return Err(invalid(format!("cuFFT spreads a plan over {MAX_DEVICES} devices at most, got {count}")));
        }
        if let Some((k, &d)) = devices.iter().enumerate().find(|(k, d)| devices[..*k].contains(d)) {
            return Err(Error::named("CUFFT_INVALID_DEVICE", format!("device {d} is in the list twice (at {k}): name each device once")));
        }
        let spec = PlanSpec::basic(ty, vec![n], batch);
        spec.check()?;
        if n > i32::MAX as u64 || batch > i32::MAX as u64 {
            return Err(Error::named("CUFFT_INVALID_SIZE", "a plan over several devices has at most 2^31-1 points and transforms"));
        }
        if batch == 1 {
            if !matches!(count, 2 | 4 | 8 | 16) {
                return Err(invalid(format!("one transform spreads over 2, 4, 8 or 16 devices, got {count}")));
            }
            let least = match count {
                2 | 4 => 64,
                8 => 128,
                _ => 1024,
            };
            if !n.is_power_of_two() || n < least {
                return Err(Error::named(
                    "CUFFT_INVALID_SIZE",
                    format!("one transform over {count} devices has a power of 2 of at least {least} points, got {n}"),
                ));
            }
        } else if batch < count as u64 {
            return Err(Error::named(
                "CUFFT_INVALID_SIZE",
                format!("{batch} transforms over {count} devices: give each device one at least (or run one transform of a power of 2)"),
            ));
        }
        let ops = rt.backend.fft().plan_multi(&devices, &spec)?;
        Ok(MultiPlan { devices, spec, ops, areas: Mutex::new(None) })
    }

    pub fn devices(&self) -> &[usize] {
        &self.devices
    }
    pub fn spec(&self) -> &PlanSpec {
        &self.spec
    }

    /// The bytes of work area each device needs.
    pub fn work_sizes(&self) -> Vec<u64> {
        self.ops.work_sizes()
    }

    /// The bytes of data each device holds (its buffer's size, and its scratch's).
    pub fn share_bytes(&self) -> Vec<u64> {
        let e = self.spec.element(0);
        shares(self.spec.shape[0], self.spec.batch, self.devices.len()).into_iter().map(|s| s * e).collect()
    }

    /// Whether the plan needs scratch buffers: one transform spread over the devices comes back
    /// permuted, and is put in order in them.
    pub fn needs_scratch(&self) -> bool {
        self.spec.batch == 1
    }

    /// Gives the plan its buffers, one a device in its order: work areas, data buffers, and
    /// scratch buffers where [`MultiPlan::needs_scratch`] (else none). Kept while the plan lives.
    pub fn set_areas(&self, work: Vec<Area>, data: Vec<Area>, scratch: Vec<Area>) -> Result<()> {
        let (sizes, shares) = (self.work_sizes(), self.share_bytes());
        let want_scratch = if self.needs_scratch() { self.devices.len() } else { 0 };
        for (what, list, want) in
            [("work areas", &work, self.devices.len()), ("buffers", &data, self.devices.len()), ("scratch buffers", &scratch, want_scratch)]
        {
            if list.len() != want {
                return Err(Error::range(format!("the plan takes {want} {what}, one a device, got {}", list.len())));
            }
        }
        let check = |(b, off): &Area, k: usize, len: u64, align: u64, what: &str| -> Result<()> {
            if b.device() != self.devices[k] {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    format!("the {what} for device {} is memory of device {}", self.devices[k], b.device()),
                ));
            }
            let (mem, at) = b.range(*off, len, what)?;
            if len > 0 && (mem.ptr() + at) % align != 0 {
                return Err(Error::named("CUFFT_UNALIGNED_DATA", format!("the {what} must be aligned to {align} bytes")));
            }
            Ok(())
        };
        let e = self.spec.element(0);
        for k in 0..self.devices.len() {
            check(&work[k], k, sizes[k], WORK_ALIGNMENT, "work area")?;
            check(&data[k], k, shares[k], e, "buffer")?;
            if want_scratch > 0 {
                check(&scratch[k], k, shares[k], e, "scratch buffer")?;
            }
        }
        let mut held = self.areas.lock().unwrap_or_else(|p| p.into_inner());
        if sizes.iter().any(|&s| s > 0) {
            let blocks: Vec<_> = work.iter().zip(&sizes).map(|((b, off), &len)| b.range(*off, len, "work area")).collect::<Result<_>>()?;
            let parts: Vec<Part<'_>> =
                blocks.iter().zip(&sizes).map(|((mem, at), &len)| Ok(Part { mem: mem.ops()?, offset: *at, len })).collect::<Result<_>>()?;
            self.ops.set_work_areas(&parts)?;
        }
        *held = Some(Areas { _work: work, data, scratch });
        Ok(())
    }

    /// Runs the transform from `in_off` bytes into `input` to `out_off` into `output` (the same
    /// address: in place), both memory of `stream`'s device, ordered after the stream's work; it
    /// returns once the output is written. Unnormalised, as cuFFT's transforms are.
    pub fn exec(&self, stream: &Stream, input: &Block, in_off: u64, output: &Block, out_off: u64, direction: Direction) -> Result<()> {
        let held = self.areas.lock().unwrap_or_else(|p| p.into_inner());
        let Some(areas) = held.as_ref() else {
            return Err(Error::named("CUFFT_NO_WORKSPACE", "the plan has no buffers yet: give them with setAreas"));
        };
        if stream.is_capturing()? {
            return Err(Error::cuda(
                Code::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "a plan over several devices waits for them, which a capture cannot record: run it outside the capture",
            ));
        }
        for (b, what) in [(input, "input"), (output, "output")] {
            if b.device() != stream.device() {
                return Err(Error::cuda(
                    Code::CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "the {what} is memory of device {}, the stream of device {}: give both of one device",
                        b.device(),
                        stream.device()
                    ),
                ));
            }
        }
        let e = self.spec.element(0);
        let total = self.spec.shape[0] * self.spec.batch * e;
        let what = format!("the {} input", self.spec.ty.name());
        let (im, io) = input.range(in_off, total, &what)?;
        let (om, oo) = output.range(out_off, total, &format!("the {} output", self.spec.ty.name()))?;
        for (addr, what) in [(im.ptr() + io, "input"), (om.ptr() + oo, "output")] {
            if addr % e != 0 {
                return Err(Error::named("CUFFT_UNALIGNED_DATA", format!("the {what} must be aligned to its {e}-byte elements")));
            }
        }
        let shares = self.share_bytes();
        let (data, scratch) = (ranges(&areas.data, &shares)?, ranges(&areas.scratch, &shares)?);
        let mut at = 0;
        for ((mem, off), &len) in data.iter().zip(&shares) {
            stream.copy_dtod(mem, *off, im, io + at, len)?;
            at += len;
        }
        stream.synchronize()?;
        let permuted = self.ops.exec(&parts(&data, &shares)?, &parts(&scratch, &shares)?, direction)?;
        for &d in &self.devices {
            crate::device::synchronize(d)?;
        }
        let result = if permuted { &scratch } else { &data };
        let mut at = 0;
        for ((mem, off), &len) in result.iter().zip(&shares) {
            stream.copy_dtod(om, oo + at, mem, *off, len)?;
            at += len;
        }
        stream.synchronize()
    }
}

/// Each area's memory and offset, `lens` bytes of it checked.
fn ranges<'a>(list: &'a [Area], lens: &[u64]) -> Result<Vec<(&'a DeviceMemory, u64)>> {
    list.iter().zip(lens).map(|((b, off), &len)| b.range(*off, len, "buffer")).collect()
}

/// The backend's view of those ranges.
fn parts<'a>(list: &[(&'a DeviceMemory, u64)], lens: &[u64]) -> Result<Vec<Part<'a>>> {
    list.iter().zip(lens).map(|((mem, off), &len)| Ok(Part { mem: mem.ops()?, offset: *off, len })).collect()
}
