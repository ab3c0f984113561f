//! cuFFT plans (CuPy's `cupy.cuda.cufft`): made on a device, given a work area, run on a stream.

use crate::raw::{Count, Numbers, Owner, Strings};
use crate::{memory, stream};
use cuda_node_core::fft::{xt_types, CallbackSource, Direction, FftType, Layout, Plan, PlanSpec};
use cuda_node_core::{runtime, Error, Result};
use std::sync::Arc;

crate::table!(PLANS: Arc<Plan>, CUDA_ERROR_INVALID_HANDLE, "this cuFFT plan was destroyed: make a new one");

pub(crate) fn counts(values: &[f64], name: &str) -> Result<Vec<u64>> {
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
        let spec = PlanSpec { ty, shape, batch: crate::raw::numbers::count("batch", batch)?, layout, xt: None };
        insert(cx, &owner, Arc::new(Plan::new(device, spec)?))
    }

    /// A plan as `fftPlanCreate`'s, its type one name or an Xt plan's three (input, output and
    /// execution `cudaDataType` names: cufftXtMakePlanMany), with LTO callbacks: `callbacks`
    /// empty or load name, load source, store name, store source ('' for none), `callerInfo`
    /// empty or load memory, offset, store memory, offset (memory -1 for none).
    c"fftPlanCreateEx" => fn fft_plan_create_ex(cx, owner: Owner, device: f64, types: Strings, shape: Numbers, batch: f64, layout: Numbers, callbacks: Strings, caller_info: Numbers) -> f64 {
        let device = runtime()?.ordinal(device)?;
        let (ty, xt) = match types.0.as_slice() {
            [one] => (FftType::parse(one)?, None),
            [i, o, e] => {
                let (ty, p) = xt_types(i, o, e)?;
                (ty, Some(p))
            }
            other => return Err(Error::type_error(format!("a plan's type is one name or three (input, output, execution), got {}", other.len()))),
        };
        let shape = counts(shape.0, "shape")?;
        let layout = layouts(layout.0, shape.len())?;
        let spec = PlanSpec { ty, shape, batch: crate::raw::numbers::count("batch", batch)?, layout, xt };
        let mut sources = Vec::new();
        if !callbacks.0.is_empty() {
            if callbacks.0.len() != 4 || !(caller_info.0.is_empty() || caller_info.0.len() == 4) {
                return Err(Error::type_error("callbacks are 4 strings (load name, source, store name, source) and callerInfo 0 or 4 numbers"));
            }
            for (k, store) in [(0, false), (1, true)] {
                let (name, source) = (&callbacks.0[2 * k], &callbacks.0[2 * k + 1]);
                if source.is_empty() {
                    continue;
                }
                let info = match caller_info.0.get(2 * k) {
                    Some(&m) if m >= 0.0 => Some((memory::get(m)?, crate::raw::numbers::count("callerInfo offset", caller_info.0[2 * k + 1])?)),
                    _ => None,
                };
                sources.push(CallbackSource { store, name: name.clone(), source: source.clone(), caller_info: info });
            }
        }
        insert(cx, &owner, Arc::new(Plan::with_callbacks(device, spec, sources)?))
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
