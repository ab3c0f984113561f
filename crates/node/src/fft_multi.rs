//! cuFFT plans over several devices (CuPy's `Plan1d(..., devices=[…])`): made, given their
//! buffers, run from one device's memory to one device's memory.

use crate::fft::counts;
use crate::raw::{Count, Numbers, Owner};
use crate::{memory, stream};
use cuda_node_core::fft::{Direction, FftType};
use cuda_node_core::fft_multi::{Area, MultiPlan};
use cuda_node_core::{Error, Result};
use std::sync::Arc;

crate::table!(MULTI_PLANS: Arc<MultiPlan>, CUDA_ERROR_INVALID_HANDLE, "this cuFFT plan was destroyed: make a new one");

/// `handles` and `offsets` as areas: one memory handle and byte offset each.
fn areas(handles: &[f64], offsets: &[f64]) -> Result<Vec<Area>> {
    if handles.len() != offsets.len() {
        return Err(Error::type_error("give one offset a memory"));
    }
    let offsets = counts(offsets, "offset")?;
    handles.iter().zip(offsets).map(|(&h, off)| Ok((memory::get(h)?, off))).collect()
}

crate::exports! {
    /// A plan of `batch` transforms of `n` points of `type` ('c2c' or 'z2z') over `devices`.
    c"fftMultiPlanCreate" => fn fft_multi_plan_create(cx, owner: Owner, devices: Numbers, ty: String, n: f64, batch: f64) -> f64 {
        let devices = counts(devices.0, "devices")?.into_iter().map(|d| d as usize).collect();
        let plan = MultiPlan::new(devices, FftType::parse(&ty)?, crate::raw::numbers::count("n", n)?, crate::raw::numbers::count("batch", batch)?)?;
        insert(cx, &owner, Arc::new(plan))
    }

    /// The bytes of work area, then of data, each device needs (2 × devices numbers), then 1 if
    /// the plan needs scratch buffers, else 0.
    c"fftMultiPlanSizes" => fn fft_multi_plan_sizes(_cx, plan: f64) -> Vec<f64> {
        with(plan, |p| {
            let mut out: Vec<f64> = p.work_sizes().into_iter().map(|v| v as f64).collect();
            out.extend(p.share_bytes().into_iter().map(|v| v as f64));
            out.push(if p.needs_scratch() { 1.0 } else { 0.0 });
            Ok(out)
        })
    }

    /// Gives the plan its work areas, data buffers and scratch buffers (memory handles and byte
    /// offsets, one a device each; no scratch unless the plan needs it).
    c"fftMultiPlanSetAreas" => fn fft_multi_plan_set_areas(_cx, plan: f64, work: Numbers, work_offsets: Numbers, data: Numbers, data_offsets: Numbers, scratch: Numbers, scratch_offsets: Numbers) -> () {
        let (work, data, scratch) = (areas(work.0, work_offsets.0)?, areas(data.0, data_offsets.0)?, areas(scratch.0, scratch_offsets.0)?);
        with(plan, |p| p.set_areas(work, data, scratch))
    }

    /// Runs the plan from `input` to `output`, memory of `stream`'s device; returns when done.
    c"fftMultiPlanExec" => fn fft_multi_plan_exec(_cx, plan: f64, stream: f64, input: f64, in_offset: Count, output: f64, out_offset: Count, direction: f64) -> () {
        let direction = Direction::from_code(direction)?;
        let (input, output) = (memory::get(input)?, memory::get(output)?);
        let plan = get(plan)?;
        stream::with(stream, |s| plan.exec(s, &input, in_offset.0, &output, out_offset.0, direction))
    }

    /// Destroys the plan (again: nothing); its buffers go back to their allocators.
    c"fftMultiPlanDestroy" => fn fft_multi_plan_destroy(_cx, plan: f64) -> () {
        drop(take(plan));
        Ok(())
    }
}
