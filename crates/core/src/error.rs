//! The one place where failures are named. Every error that leaves the core is an [`Error`]:
//! a CUDA failure carries the driver's `CUresult` (its name becomes the JS `code`), and bad
//! arguments become `TypeError` / `RangeError` before anything reaches a backend.

use crate::driver_sys::CUresult;
use std::fmt;
use std::sync::OnceLock;

pub use crate::driver_sys::CUresult as Code;

/// What went wrong, in the shape the JS layer throws it.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// A CUDA failure (real or simulated): `code` is the driver's result.
    Cuda { code: Code, message: String },
    /// A failure of another CUDA library with its own names (NVRTC's `NVRTC_ERROR_COMPILATION`, ...).
    Named { code: &'static str, message: String },
    /// An argument of the wrong kind (JS `TypeError`).
    Type(String),
    /// An argument of the right kind but outside what is allowed (JS `RangeError`).
    Range(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn cuda(code: Code, message: impl Into<String>) -> Self {
        Error::Cuda { code, message: message.into() }
    }

    pub fn named(code: &'static str, message: impl Into<String>) -> Self {
        Error::Named { code, message: message.into() }
    }

    pub fn type_error(message: impl Into<String>) -> Self {
        Error::Type(message.into())
    }

    pub fn range(message: impl Into<String>) -> Self {
        Error::Range(message.into())
    }

    /// A failure returned by the real driver from `api`, described by the driver itself.
    pub fn driver(api: &str, code: Code) -> Self {
        let what = driver_description(code).unwrap_or_else(|| describe(code).to_string());
        Error::Cuda { code, message: format!("{api} failed: {what}") }
    }

    /// The CUDA name of the code (`"CUDA_ERROR_INVALID_VALUE"`), or `None` for argument errors.
    pub fn code_name(&self) -> Option<String> {
        match self {
            Error::Cuda { code, .. } => Some(code_name(*code)),
            Error::Named { code, .. } => Some(code.to_string()),
            _ => None,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Error::Cuda { message, .. } | Error::Named { message, .. } | Error::Type(message) | Error::Range(message) => message,
        }
    }

    /// True for the errors after which the CUDA context is unusable (cuda-semantics X2).
    pub fn is_sticky(&self) -> bool {
        matches!(self, Error::Cuda { code, .. } if is_sticky(*code))
    }

    pub fn is_code(&self, wanted: Code) -> bool {
        matches!(self, Error::Cuda { code, .. } if *code == wanted)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Cuda { code, message } => write!(f, "{} ({})", message, code_name(*code)),
            Error::Named { code, message } => write!(f, "{message} ({code})"),
            Error::Type(m) => write!(f, "TypeError: {m}"),
            Error::Range(m) => write!(f, "RangeError: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// `CUDA_ERROR_INVALID_VALUE` for `CUresult::CUDA_ERROR_INVALID_VALUE`: the enum's own name.
pub fn code_name(code: Code) -> String {
    format!("{code:?}")
}

/// Codes that leave the context unusable until the process restarts (cuda-semantics X2).
pub fn is_sticky(code: Code) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_CONTAINED
            | CUDA_ERROR_EXTERNAL_DEVICE
            | CUDA_ERROR_MPS_CLIENT_TERMINATED
    )
}

/// Where the driver's own sentence for a code comes from: set by the backend that loaded a
/// driver (the cuda backend, once `cuInit` succeeds), so that this file names no backend.
static DRIVER_DESCRIPTION: OnceLock<fn(Code) -> Option<String>> = OnceLock::new();

/// Lets [`Error::driver`] describe codes in the driver's words from now on (the first call wins).
pub fn set_driver_description(describe: fn(Code) -> Option<String>) {
    let _ = DRIVER_DESCRIPTION.set(describe);
}

/// The driver's own sentence for a code, when a driver is loaded; else `None` (our own sentences).
fn driver_description(code: Code) -> Option<String> {
    DRIVER_DESCRIPTION.get().and_then(|describe| describe(code))
}

/// Our sentence for the codes the simulator and the argument checks produce, so that both
/// backends read alike where no driver is loaded. The texts follow the driver's.
pub fn describe(code: Code) -> &'static str {
    use CUresult::*;
    match code {
        CUDA_SUCCESS => "no error",
        CUDA_ERROR_INVALID_VALUE => "invalid argument",
        CUDA_ERROR_OUT_OF_MEMORY => "out of memory",
        CUDA_ERROR_NOT_INITIALIZED => "initialization error",
        CUDA_ERROR_NO_DEVICE => "no CUDA-capable device is detected",
        CUDA_ERROR_INVALID_DEVICE => "invalid device ordinal",
        CUDA_ERROR_INVALID_CONTEXT => "invalid device context",
        CUDA_ERROR_INVALID_HANDLE => "invalid resource handle",
        CUDA_ERROR_ILLEGAL_STATE => "the operation cannot be performed in the present state",
        CUDA_ERROR_NOT_FOUND => "named symbol not found",
        CUDA_ERROR_NOT_READY => "device not ready",
        CUDA_ERROR_ILLEGAL_ADDRESS => "an illegal memory access was encountered",
        CUDA_ERROR_LAUNCH_FAILED => "unspecified launch failure",
        CUDA_ERROR_NOT_PERMITTED => "operation not permitted",
        CUDA_ERROR_NOT_SUPPORTED => "operation not supported",
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED => "operation not permitted when stream is capturing",
        CUDA_ERROR_STREAM_CAPTURE_INVALIDATED => "operation failed due to a previous error during capture",
        CUDA_ERROR_STREAM_CAPTURE_MERGE => "operation would result in a merge of separate capture sequences",
        CUDA_ERROR_STREAM_CAPTURE_UNMATCHED => "capture was not ended in the same stream as it began",
        CUDA_ERROR_STREAM_CAPTURE_UNJOINED => "capturing stream has unjoined work",
        CUDA_ERROR_STREAM_CAPTURE_ISOLATION => "dependency created on uncaptured work in another stream",
        CUDA_ERROR_STREAM_CAPTURE_IMPLICIT => "operation would make the legacy stream depend on a capturing blocking stream",
        CUDA_ERROR_CAPTURED_EVENT => "operation not permitted on an event last recorded in a capturing stream",
        CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD => "attempt to terminate a thread-local capture sequence from another thread",
        CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE => "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
        CUDA_ERROR_UNKNOWN => "unknown error",
        _ => "CUDA error",
    }
}

/// Turns a driver call's result into ours, naming the call.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
pub(crate) trait Check<T> {
    fn check(self, api: &str) -> Result<T>;
}

impl Check<()> for CUresult {
    fn check(self, api: &str) -> Result<()> {
        match self {
            CUresult::CUDA_SUCCESS => Ok(()),
            code => Err(Error::driver(api, code)),
        }
    }
}

/// A raw layer's result (`cuda::raw`), the driver's code as its error.
impl<T> Check<T> for std::result::Result<T, CUresult> {
    #[inline]
    fn check(self, api: &str) -> Result<T> {
        self.map_err(|code| Error::driver(api, code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_names_are_the_cuda_names() {
        assert_eq!(code_name(CUresult::CUDA_ERROR_INVALID_VALUE), "CUDA_ERROR_INVALID_VALUE");
        assert_eq!(code_name(CUresult::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    }

    #[test]
    fn sticky_errors_are_the_context_fatal_ones() {
        assert!(is_sticky(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(!is_sticky(CUresult::CUDA_ERROR_INVALID_VALUE));
        assert!(!is_sticky(CUresult::CUDA_ERROR_NOT_READY));
    }

    #[test]
    fn display_carries_message_and_code() {
        let e = Error::cuda(CUresult::CUDA_ERROR_INVALID_DEVICE, "device 3 does not exist");
        assert_eq!(e.to_string(), "device 3 does not exist (CUDA_ERROR_INVALID_DEVICE)");
        assert_eq!(e.code_name().as_deref(), Some("CUDA_ERROR_INVALID_DEVICE"));
        assert_eq!(Error::type_error("x").code_name(), None);
    }
}
