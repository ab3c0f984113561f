//! cuFFT plans (CuPy's `cupy.cuda.cufft`): made on a device, given a work area, run on a stream.

use crate::raw::{Count, Numbers, Owner};
use crate::{memory, stream};
use cuda_node_core::fft::{Direction, FftType, Layout, Plan, PlanSpec};
use cuda_node_core::{runtime, Error, Result};
use std::sync::Arc;

crate::table!(PLANS: Arc<Plan>, CUDA_ERROR_INVALID_HANDLE, "this cuFFT plan was destroyed: make a new one");

fn counts(values: &[f64], name: &str) -> Result<Vec<u64>> {
    values.iter().map(|&v| crate::raw::numbers::count(name, v)).collect()
}

/// `layout`: empty for the basic layout, else inembed (rank sizes), istride, idist, onembed,
/// ostride, odist.
fn layouts(layout: &[f64], rank: usize) -> Result<Option<[Layout; 2]>> {
    if layout.is_empty() {
        return Ok(None);
    }
    if layout.len() != 2 * (rank + 2) {
        return Err(Error::range(format!("a layout is {} numbers for a rank-{rank} plan, got {}", 2 * (rank + 2), layout.len())));
    }
    let side = |v: &[f64]| -> Result<Layout> {
        Ok(Layout {
            embed: counts(&v[..rank], "embed")?,
            stride: counts(&v[rank..rank + 1], "stride")?[0],
            dist: counts(&v[rank + 1..], "dist")?[0],
        })
    };
    Ok(Some([side(&layout[..rank + 2])?, side(&layout[rank + 2..])?]))
}

crate::exports! {
    /// A plan of `type` ('c2c', 'r2c', 'c2r', 'z2z', 'd2z', 'z2d') over `shape` (1 to 3 sizes,
    /// the last fastest), `batch` times, on `device`, with no work area yet; `layout` as
    /// cufftPlanMany's (empty: the basic layout).
    c"fftPlanCreate" => fn fft_plan_create(cx, owner: Owner, device: f64, ty: String, shape: Numbers, batch: f64, layout: Numbers) -> f64 {
        let device = runtime()?.ordinal(device)?;
        let ty = FftType::parse(&ty)?;
        let shape = counts(shape.0, "shape")?;
        let layout = layouts(layout.0, shape.len())?;
        let spec = PlanSpec { ty, shape, batch: crate::raw::numbers::count("batch", batch)?, layout };
        insert(cx, &owner, Arc::new(Plan::new(device, spec)?))
    }

    /// The bytes of work area the plan needs.
    c"fftPlanWorkSize" => fn fft_plan_work_size(_cx, plan: f64) -> f64 {
        with(plan, |p| Ok(p.work_size() as f64))
    }

    /// Uses `offset` bytes into the memory `mem` as the plan's work area (kept while the plan lives).
    c"fftPlanSetWorkArea" => fn fft_plan_set_work_area(_cx, plan: f64, mem: f64, offset: Count) -> () {
        let block = memory::get(mem)?;
        with(plan, |p| p.set_work_area(block, offset.0))
    }

    /// Runs the plan on `stream` from `input` (at `inOffset` bytes) to `output` (at `outOffset`);
    /// `direction` -1 (forward) or 1 (inverse).
    c"fftPlanExec" => fn fft_plan_exec(_cx, plan: f64, stream: f64, input: f64, in_offset: Count, output: f64, out_offset: Count, direction: f64) -> () {
        let direction = Direction::from_code(direction)?;
        let (input, output) = (memory::get(input)?, memory::get(output)?);
        let plan = get(plan)?;
        stream::with(stream, |s| plan.exec(s, &input, in_offset.0, &output, out_offset.0, direction))
    }

    /// Destroys the plan (again: nothing); its work area goes back to its allocator.
    c"fftPlanDestroy" => fn fft_plan_destroy(_cx, plan: f64) -> () {
        drop(take(plan));
        Ok(())
    }
}
