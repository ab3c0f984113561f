//! `cuProfilerStart` / `cuProfilerStop`.

crate::exports! {
    /// Starts or stops the profiler.
    c"profilerSet" => fn profiler_set(_cx, on: bool) -> () {
        cuda_node_core::profiler::set(on)
    }

    /// True between start and stop.
    c"profilerActive" => fn profiler_active(_cx) -> bool {
        Ok(cuda_node_core::profiler::active())
    }
}
