//! Graphs built node by node (cuda.core's `GraphBuilder`): nodes captured into the graph, child
//! graphs, conditional nodes with nested builders, and updates of single nodes in place. A node
//! is `(builder id, index)`; `after` lists come as a Float64Array of such pairs.

use crate::raw::{BigU64, Count, Numbers, Owner};
use crate::{graph, memory, stream};
use cuda_node_core::{runtime, CondKind, CondTest, Condition, Error, GraphBuilder, NodeRef};
use std::cell::RefCell;
use std::rc::Rc;

/// A builder in this thread's table.
pub type Held = Rc<RefCell<GraphBuilder>>;

crate::table!(BUILDERS: Held, CUDA_ERROR_INVALID_HANDLE, "this GraphBuilder was destroyed: its nodes can no longer be used; make a new one");

/// The nodes of an `after` list: pairs of builder id and index.
fn after(pairs: &[f64]) -> cuda_node_core::Result<Vec<NodeRef>> {
    if !pairs.len().is_multiple_of(2) {
        return Err(Error::range("after: pairs of builder id and node index"));
    }
    Ok(pairs.chunks_exact(2).map(|p| NodeRef { builder: p[0] as u64, index: p[1] as u32 }).collect())
}

/// Runs `f` on the builder, borrowed mutably for the call.
fn with_mut<R>(b: f64, f: impl FnOnce(&mut GraphBuilder) -> cuda_node_core::Result<R>) -> cuda_node_core::Result<R> {
    with(b, |h| {
        let mut g =
            h.try_borrow_mut().map_err(|_| Error::cuda(cuda_node_core::Code::CUDA_ERROR_ILLEGAL_STATE, "the GraphBuilder is in use"))?;
        f(&mut g)
    })
}

crate::exports! {
    /// An empty graph to build node by node on `device` (`cuGraphCreate`).
    c"graphBuilderCreate" => fn graph_builder_create(cx, owner: Owner, device: f64) -> f64 {
        let b = GraphBuilder::new(runtime()?.ordinal(device)?)?;
        insert(cx, &owner, Rc::new(RefCell::new(b)))
    }

    /// The builder's id, which its nodes carry.
    c"graphBuilderId" => fn graph_builder_id(_cx, builder: f64) -> f64 {
        with(builder, |b| Ok(b.borrow().id() as f64))
    }

    /// Begins capturing into the graph on `stream`, after the nodes `after`.
    c"graphBuilderBegin" => fn graph_builder_begin(_cx, builder: f64, stream: f64, after_nodes: Numbers) -> () {
        let after = after(after_nodes.0)?;
        stream::with(stream, |s| with_mut(builder, |b| b.begin(s, &after)))
    }

    /// Ends the capture; returns the node's index.
    c"graphBuilderEnd" => fn graph_builder_end(_cx, builder: f64, stream: f64) -> u32 {
        stream::with(stream, |s| with_mut(builder, |b| b.end(s)))
    }

    /// Adds a node running a copy of `graph` (`cuGraphAddChildGraphNode`); returns its index.
    c"graphBuilderAddChild" => fn graph_builder_add_child(_cx, builder: f64, child: f64, after_nodes: Numbers) -> u32 {
        let after = after(after_nodes.0)?;
        graph::with(child, |g| with_mut(builder, |b| b.add_child(&g.borrow(), &after)))
    }

    /// Adds a node recording `event` (`wait`: waiting for it); returns its index.
    c"graphBuilderAddEvent" => fn graph_builder_add_event(_cx, builder: f64, event: f64, wait: bool, after_nodes: Numbers) -> u32 {
        let after = after(after_nodes.0)?;
        crate::event::with(event, |e| with_mut(builder, |b| b.add_event(e, wait, &after)))
    }

    /// A condition of the builder's graph (`cuGraphConditionalHandleCreate`); its handle.
    c"graphBuilderCondition" => fn graph_builder_condition(_cx, builder: f64, default_value: Option<u32>) -> BigU64 {
        with_mut(builder, |b| Ok(BigU64(b.condition(default_value)?.handle)))
    }

    /// Adds a conditional node (kind 0 if, 1 if/else, 2 while, 3 switch of `cases`); returns its
    /// index, then a handle for each body's builder, owned by `owner`.
    c"graphBuilderAddConditional" => fn graph_builder_add_conditional(cx, owner: Owner, builder: f64, cond_builder: f64, cond: BigU64, kind: u32, cases: u32, after_nodes: Numbers) -> Vec<f64> {
        let after = after(after_nodes.0)?;
        let kind = match kind {
            0 => CondKind::If,
            1 => CondKind::IfElse,
            2 => CondKind::While,
            _ => CondKind::Switch(cases),
        };
        let cond = Condition { builder: cond_builder as u64, handle: cond.0 };
        let (node, bodies) = with_mut(builder, |b| b.add_conditional(cond, kind, &after))?;
        let mut out = vec![node as f64];
        for body in bodies {
            out.push(insert(cx, &owner, Rc::new(RefCell::new(body)))?);
        }
        Ok(out)
    }

    /// Closes a body's builder: its function returned.
    c"graphBuilderClose" => fn graph_builder_close(_cx, builder: f64) -> () {
        with_mut(builder, |b| b.close())
    }

    /// Adds the built-in set-condition node: `cond` from the element at `mem + offset`
    /// (`dtype`, `op`, `value` as `CondTest` numbers them); returns its index.
    c"graphBuilderSetCondition" => fn graph_builder_set_condition(_cx, builder: f64, stream: f64, cond_builder: f64, cond: BigU64, mem: f64, offset: Count, dtype: u32, op: u32, value: BigU64, after_nodes: Numbers) -> u32 {
        let after = after(after_nodes.0)?;
        let test = CondTest { dtype, op, value: value.0 };
        let cond = Condition { builder: cond_builder as u64, handle: cond.0 };
        let block = memory::get(mem)?;
        let (m, at) = block.range(offset.0, test.width(), "addSetCondition")?;
        stream::with(stream, |s| with_mut(builder, |b| b.add_set_condition(s, cond, m, at, test, &after)))
    }

    /// The graph so far, in Graphviz dot.
    c"graphBuilderToDot" => fn graph_builder_to_dot(_cx, builder: f64) -> String {
        with(builder, |b| b.borrow().to_dot())
    }

    /// A node's kind: "kernel", "memcpy", "memset", "host", "graph", "conditional", … ("capture"
    /// for several).
    c"graphBuilderNodeKind" => fn graph_builder_node_kind(_cx, builder: f64, index: u32) -> String {
        with(builder, |b| Ok(b.borrow().node_kind(index)?.to_string()))
    }

    /// An executable graph of what is built so far, owned by `owner`.
    c"graphBuilderInstantiate" => fn graph_builder_instantiate(cx, owner: Owner, builder: f64) -> f64 {
        let g = with(builder, |b| b.borrow().instantiate())?;
        graph::insert(cx, &owner, graph::held(g))
    }

    /// Releases the builder (again: nothing); graphs instantiated from it stay.
    c"graphBuilderDestroy" => fn graph_builder_destroy(_cx, builder: f64) -> () {
        drop(take(builder).ok());
        Ok(())
    }

    /// Gives the graph's node `index` of builder `builder_id` the parameters of node
    /// `from_index` of the builder `from`.
    c"graphSetParams" => fn graph_set_params(_cx, graph: f64, builder_id: f64, index: u32, from: f64, from_index: u32) -> () {
        graph::with(graph, |g| with(from, |f| {
            let mut g = g.try_borrow_mut().map_err(|_| Error::cuda(cuda_node_core::Code::CUDA_ERROR_ILLEGAL_STATE, "the graph is in use"))?;
            f.borrow().update_node(&mut g, builder_id as u64, index, from_index)
        }))
    }

    /// Turns the graph's node `index` of builder `builder_id` off or on.
    c"graphSetEnabled" => fn graph_set_enabled(_cx, graph: f64, builder_id: f64, index: u32, enabled: bool) -> () {
        graph::with(graph, |g| g.borrow().set_enabled(builder_id as u64, index, enabled))
    }
}
