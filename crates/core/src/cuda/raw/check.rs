//! What every raw file shares: the result type and the two ways a driver code reads.

use cudarc::driver::sys::CUresult;

/// A driver call's result: the value it wrote, or its code.
pub(crate) type Raw<T> = std::result::Result<T, CUresult>;

#[inline(always)]
pub(super) fn ok(r: CUresult) -> Raw<()> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(()),
        code => Err(code),
    }
}

/// `Ok(true)` for success, `Ok(false)` for `CUDA_ERROR_NOT_READY`, the code otherwise.
#[inline(always)]
pub(super) fn ready(r: CUresult) -> Raw<bool> {
    match r {
        CUresult::CUDA_SUCCESS => Ok(true),
        CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        code => Err(code),
    }
}
