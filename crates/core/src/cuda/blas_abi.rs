//! Calling a cuBLAS entry point of the table (`ops/blas_table.rs`) with its C signature: each
//! signature the table uses is declared here as the exact C function type (after the handle:
//! `int` or enum, `long long`, or a pointer), and a call picks its type by the entry's signature.

use std::ffi::{c_int, c_longlong, c_void};

/// One C argument after the handle.
#[derive(Clone, Copy, Debug)]
pub enum CArg {
    I(c_int),
    L(c_longlong),
    P(*mut c_void),
}

impl CArg {
    fn letter(self) -> char {
        match self {
            CArg::I(_) => 'i',
            CArg::L(_) => 'l',
            CArg::P(_) => 'p',
        }
    }
}

macro_rules! ty {
    (i) => { c_int };
    (l) => { c_longlong };
    (p) => { *mut c_void };
}

macro_rules! arg {
    (i, $it:ident) => {
        match $it.next() {
            Some(CArg::I(v)) => *v,
            _ => unreachable!("the signature was read from the arguments"),
        }
    };
    (l, $it:ident) => {
        match $it.next() {
            Some(CArg::L(v)) => *v,
            _ => unreachable!("the signature was read from the arguments"),
        }
    };
    (p, $it:ident) => {
        match $it.next() {
            Some(CArg::P(v)) => *v,
            _ => unreachable!("the signature was read from the arguments"),
        }
    };
}

macro_rules! signatures {
    ($(($($k:ident)*)),* $(,)?) => {
        /// The signatures [`call`] knows, as the table writes them (`i`, `l`, `p`).
        #[cfg(test)]
        pub const SIGNATURES: &[&str] = &[$(concat!($(stringify!($k)),*)),*];

        /// Calls `f`, a cuBLAS entry point taking the handle then `args`, as the C function of
        /// that signature; `None` where this file declares no such signature.
        ///
        /// # Safety
        /// 1. `f` is a cuBLAS function whose C parameters after the handle are `args`' kinds,
        ///    in order, returning `cublasStatus_t`.
        /// 2. `handle` is a live cuBLAS handle, used by no other thread during the call.
        /// 3. Every pointer is what the function reads or writes there: device memory of the
        ///    extent its sizes imply, or host memory where the pointer mode says host.
        pub unsafe fn call(f: *const c_void, handle: *mut c_void, args: &[CArg]) -> Option<c_int> {
            let sig: String = args.iter().map(|a| a.letter()).collect();
            $(
                if sig == concat!($(stringify!($k)),*) {
                    // SAFETY: `f` has this C type (1); the signature was read from `args`.
                    let f: unsafe extern "C" fn(*mut c_void $(, ty!($k))*) -> c_int = unsafe { std::mem::transmute(f) };
                    let mut it = args.iter();
                    // SAFETY: the handle and pointers are what the function expects (2, 3).
                    return Some(unsafe { f(handle $(, arg!($k, it))*) });
                }
            )*
            None
        }
    };
}

signatures! {
    (i i i i i i p p i p i),
    (i i i i i i p p i p i p i),
    (i i i i i p i p i),
    (i i i i i p p i l p i l p p i l i),
    (i i i i i p p i p i p p i),
    (i i i i p i p i),
    (i i i i p p i),
    (i i i i p p i p i p p i),
    (i i i i p p i p p i),
    (i i i i p p i p p i p i),
    (i i i p i p i p i),
    (i i i p p i p i p p i),
    (i i p i p),
    (i i p p i),
    (i i p p i p),
    (i i p p i p i),
    (i i p p i p i p),
    (i i p p i p i p i),
    (i i p p i p i p p i),
    (i i p p p i p p i),
    (i p i p),
    (i p i p i),
    (i p i p i p),
    (i p i p i p p),
    (i p p i),
    (i p p i p i),
    (i i i i i p p i p i p p i i),
    (i i i i i i p p i p i i),
    (i p i p p i),
    (i i i p i p p i p i),
    (i p i p p i p i),
    (i p i p i p i),
    (i i p i p p i),
    (i i i i p i p i p p i),
    (p p p p),
    (p p p p p),
    // The `Ex` entry points: a `cudaDataType` after each typed operand, the execution type last.
    (i p i p i i p i i i),
    (i i i i i p p i i p i i p p i i),
    (i p i i p i i p i i),
    (i p i i p i i),
    (i p i i p i i p p i i),
    (i p i p i i i),
    (i i i i i p p i i p i i p p i i i i i),
    // The 64-bit variants (`<symbol>_64`): each size an `int64_t`.
    (i i i i l l p p l p l l),
    (i i i i l l p p l p l p l),
    (i i i i l l p p l p l),
    (i i i l l p l p l),
    (i i i l p l p l),
    (i i i l p p l),
    (i i l l l p p l l p l l p p l l l),
    (i i l l l p p l p l p p l l),
    (i i l l l p p l p l p p l),
    (i i l l p p l p l p p l),
    (i i l l p p l p p l p l),
    (i i l l p p l p p l),
    (i l l l l p p l p l p p l),
    (i l l p l p l p l),
    (i l l p p l p l p p l),
    (i l p p l p l p l),
    (i l p p l p l p p l),
    (i l p p l p l p),
    (i l p p l p l),
    (i l p p l p),
    (i l p p p l p p l),
    (l l p p l p l p l),
    (l p l p l p p),
    (l p l p l p),
    (l p l p l),
    (l p l p),
    (l p p l p l),
    (l p p l),
}

#[cfg(test)]
mod tests {
    use crate::ops::blas_table::{entry, ex_signature, signature, ENTRIES, EX_ENTRIES};

    #[test]
    fn every_entry_has_its_signature_here() {
        let mut missing = Vec::new();
        for e in ENTRIES {
            for ilp64 in [false, true] {
                let sig = signature(e.params, ilp64);
                if (!ilp64 || e.has_64()) && !super::SIGNATURES.contains(&sig.as_str()) {
                    missing.push(format!("{}: ({})", e.symbol_for(ilp64), sig.chars().map(String::from).collect::<Vec<_>>().join(" ")));
                }
            }
        }
        for x in EX_ENTRIES {
            for &(_, _, typed) in x.combos {
                let sig = ex_signature(x, entry(typed).unwrap().0);
                if !super::SIGNATURES.contains(&sig.as_str()) {
                    missing.push(format!("{}: ({})", x.symbol, sig.chars().map(String::from).collect::<Vec<_>>().join(" ")));
                }
            }
        }
        assert!(missing.is_empty(), "no signature for\n{}", missing.join("\n"));
    }
}
