//! Graphs made by stream capture: launch, upload, update, dot, destroy. A graph owns the host
//! callbacks it captured (core `Graph`); each launch owes the event loop one run of each.

use crate::raw::Owner;
use crate::{callbacks, stream};
use cuda_node_core::{Code, Error, Graph};
use std::cell::RefCell;
use std::rc::Rc;

/// A graph in this thread's table (`update` changes it in place).
pub type Held = Rc<RefCell<Graph>>;

crate::table!(GRAPHS: Held, CUDA_ERROR_INVALID_HANDLE, "this Graph was destroyed: capture a new one");

/// A graph, as the table keeps it.
pub fn held(g: Graph) -> Held {
    Rc::new(RefCell::new(g))
}

crate::exports! {
    /// Ends the capture begun on the stream; returns the graph's handle, owned by `owner`.
    c"streamEndCapture" => fn stream_end_capture(cx, owner: Owner, stream: f64) -> f64 {
        let g = stream::with(stream, |s| s.end_capture())?;
        insert(cx, &owner, held(g))
    }

    /// Runs the graph on `stream`, after earlier work there and after its own previous launch.
    c"graphLaunch" => fn graph_launch(cx, graph: f64, stream: f64) -> () {
        with(graph, |g| {
            let g = g.borrow();
            let runs = g.host_fn_count();
            callbacks::owe(cx.env, runs)?;
            stream::with(stream, |s| g.launch(s)).inspect_err(|_| callbacks::forgive(cx.env, runs))
        })
    }

    /// Prepares the graph on `stream` without running it.
    c"graphUpload" => fn graph_upload(_cx, graph: f64, stream: f64) -> () {
        with(graph, |g| stream::with(stream, |s| g.borrow().upload(s)))
    }

    /// The graph in Graphviz dot.
    c"graphToDot" => fn graph_to_dot(_cx, graph: f64) -> String {
        with(graph, |g| g.borrow().to_dot())
    }

    /// Takes the node parameters of `other`, a capture of the same topology.
    c"graphUpdate" => fn graph_update(_cx, graph: f64, other: f64) -> () {
        if graph == other {
            return with(graph, |_| Ok(()));
        }
        with(graph, |g| with(other, |o| {
            let mut g = g.try_borrow_mut().map_err(|_| Error::cuda(Code::CUDA_ERROR_ILLEGAL_STATE, "the graph is in use"))?;
            g.update(&o.borrow())
        }))
    }

    /// How many host callbacks the graph runs at each launch.
    c"graphHostFnCount" => fn graph_host_fn_count(_cx, graph: f64) -> f64 {
        with(graph, |g| Ok(g.borrow().host_fn_count() as f64))
    }

    /// Releases the graph (again: nothing). Launches already queued still run, callbacks included.
    c"graphDestroy" => fn graph_destroy(_cx, graph: f64) -> () {
        drop(crate::handles::take(&GRAPHS, graph)?);
        Ok(())
    }
}
