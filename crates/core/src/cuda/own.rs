//! Recovering the backend's concrete types from the seam's trait objects it is given back.

/// This backend's own object behind a seam trait object it is given back (its stream, graph
/// or kernel): the one place the backend recovers its concrete types. Only one backend runs in
/// a process, so every such object came from this one.
pub(crate) fn own<T: 'static>(any: &dyn std::any::Any) -> &T {
    any.downcast_ref::<T>().expect("the cuda backend is given back only its own objects")
}
