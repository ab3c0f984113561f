//! Per-call cost of the hot core calls, without JS: `cargo run --release --example hot --features floor`.
//! Compare with `bench/micro.js` (the same calls from JS) to see what the binding adds.
use cuda_node_core::floor::{floor, FloorOp};
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
    time("Stream::record + Event::query", n, || {
        s.record(&e).unwrap();
        black_box(e.query().unwrap());
    });
    // The bench's in-process floor: the bare driver calls on cuda, the core's on sim.
    for (name, op) in [("floor: record + query", FloorOp::EventRecordQuery), ("floor: synchronize", FloorOp::StreamSynchronize)] {
        let mut per: Vec<f64> = (0..9).map(|_| floor(op, &s, &e, n).unwrap()).collect();
        per.sort_by(|a, b| a.total_cmp(b));
        println!("{name:<40} {:>8.1} ns", per[4]);
    }
    if runtime()?.info.kind.name() == "cuda" {
        use cudarc::driver::sys;
        time("cuCtxGetCurrent", n, || {
            let mut c = std::ptr::null_mut();
            // SAFETY: a valid out-pointer.
            unsafe { sys::cuCtxGetCurrent(&mut c) };
            black_box(c);
        });
        let (rs, re) = (s.handle()? as sys::CUstream, e.handle()? as sys::CUevent);
        // SAFETY: live handles of this process's stream and event.
        time("raw cuStreamQuery", n, || unsafe {
            black_box(sys::cuStreamQuery(rs));
        });
        // Do these calls need a current context, or does the handle carry its own? Ask from a
        // thread that has none.
        let (rs, re) = (rs as usize, re as usize);
        std::thread::spawn(move || {
            let (rs, re) = (rs as sys::CUstream, re as sys::CUevent);
            let mut c = std::ptr::null_mut();
            // SAFETY: live handles; valid out-pointers.
            unsafe {
                sys::cuCtxGetCurrent(&mut c);
                println!("fresh thread: current context null = {}", c.is_null());
                println!("  cuStreamSynchronize {:?}", sys::cuStreamSynchronize(rs));
                println!("  cuStreamQuery {:?}", sys::cuStreamQuery(rs));
                println!("  cuEventRecord {:?}", sys::cuEventRecord(re, rs));
                println!("  cuEventQuery {:?}", sys::cuEventQuery(re));
                println!("  cuEventSynchronize {:?}", sys::cuEventSynchronize(re));
                println!("  cuStreamWaitEvent {:?}", sys::cuStreamWaitEvent(rs, re, 0));
            }
        })
        .join()
        .unwrap();
    }
    // A host function's round trip back to this thread through a condition variable, as the
    // C++ floor times it: what the core adds to the driver's own hand-off.
    let flag = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    time("host fn round trip (condvar)", 200, || {
        *flag.0.lock().unwrap() = false;
        let f = flag.clone();
        s.launch_host_fn(Box::new(move || {
            *f.0.lock().unwrap() = true;
            f.1.notify_one();
        }))
        .unwrap();
        let mut done = flag.0.lock().unwrap();
        while !*done {
            done = flag.1.wait(done).unwrap();
        }
    });
    let pool = MemoryPool::new(0);
    time("MemoryPool malloc+drop 1 MiB", n, || drop(pool.malloc(1 << 20, &s).unwrap()));
    Ok(())
}
