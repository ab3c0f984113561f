//! Per-call cost of the hot core calls, without JS: `cargo run --release --example hot`.
//! Compare with `bench/micro.js` (the same calls from JS) to see what the binding adds.
use cuda_node_core::{runtime, Event, EventFlags, MemoryPool, Stream};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn time(name: &str, n: u32, mut f: impl FnMut()) {
    for _ in 0..n.min(10_000) {
        f();
    }
    let mut per: Vec<f64> = (0..9)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_nanos() as f64 / n as f64
        })
        .collect();
    per.sort_by(|a, b| a.total_cmp(b));
    println!("{name:<40} {:>8.1} ns", per[4]);
}

fn main() -> cuda_node_core::Result<()> {
    println!("backend {}", runtime()?.info.kind.name());
    let s = Arc::new(Stream::create(0, true, None)?);
    let e = Event::create(0, EventFlags { blocking: false, disable_timing: true, interprocess: false })?;
    let n = 100_000;
    time("Stream::query", n, || {
        black_box(s.query().unwrap());
    });
    time("Stream::synchronize", n, || s.synchronize().unwrap());
    time("Event::query", n, || {
        black_box(e.query().unwrap());
    });
    time("Stream::record", n, || s.record(&e).unwrap());
    time("Stream::is_capturing", n, || {
        black_box(s.is_capturing().unwrap());
    });
    if runtime()?.info.kind.name() == "cuda" {
        time("cuCtxGetCurrent", n, || {
            let mut c = std::ptr::null_mut();
            // SAFETY: a valid out-pointer.
            unsafe { cudarc::driver::sys::cuCtxGetCurrent(&mut c) };
            black_box(c);
        });
    }
    let pool = MemoryPool::new(0);
    time("MemoryPool malloc+drop 1 MiB", n, || drop(pool.malloc(1 << 20, &s).unwrap()));
    Ok(())
}
