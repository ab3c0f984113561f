//! Device memory from an allocator another addon brings as native functions (CuPy's
//! `CFunctionAllocator`): `void* malloc(void* param, size_t size, int device)` and
//! `void free(void* param, void* ptr, int device)`, given by address with their `param`, as
//! CuPy's `CFunctionAllocator(param, malloc_func, free_func, owner)` takes them.

use crate::error::{Code, Error, Result};
use crate::memory::{DeviceMemory, Keep};

/// The allocator: the two functions' addresses and the `param` both are given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CFunctions {
    pub malloc: u64,
    pub free: u64,
    pub param: u64,
}

#[cfg(not(target_family = "wasm"))]
type MallocFn = unsafe extern "C" fn(*mut std::ffi::c_void, usize, std::ffi::c_int) -> *mut std::ffi::c_void;
#[cfg(not(target_family = "wasm"))]
type FreeFn = unsafe extern "C" fn(*mut std::ffi::c_void, *mut std::ffi::c_void, std::ffi::c_int);

/// Whether `addr` lies in an executable mapping of this process (`/proc/self/maps`); `None` where
/// that cannot be read. A function pointer is trusted to have its signature, as CuPy trusts it,
/// but an address where no code is would crash the process at the first call: it is refused.
fn executable(addr: u64) -> Option<bool> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    Some(maps.lines().any(|l| {
        let mut f = l.split_whitespace();
        let (Some(range), Some(perms)) = (f.next(), f.next()) else { return false };
        let Some((a, b)) = range.split_once('-') else { return false };
        let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) else { return false };
        perms.as_bytes().get(2) == Some(&b'x') && (a..b).contains(&addr)
    }))
}

impl CFunctions {
    /// Checks the two addresses: not null, and (where the process's mappings can be read) in code.
    pub fn check(&self) -> Result<()> {
        if cfg!(target_family = "wasm") {
            return Err(Error::cuda(
                Code::CUDA_ERROR_NOT_SUPPORTED,
                "CFunctionAllocator needs the native build: WebAssembly cannot call native functions by address",
            ));
        }
        // Addresses found in code once are not looked up again (a read of the maps each time).
        static KNOWN: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());
        let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
        for (what, addr) in [("malloc", self.malloc), ("free", self.free)] {
            if known.contains(&addr) {
                continue;
            }
            if addr == 0 || executable(addr) == Some(false) {
                return Err(Error::range(format!(
                    "{what} 0x{addr:x} is no function of this process: pass the address of a loaded native function, as a bigint"
                )));
            }
            known.push(addr);
        }
        Ok(())
    }

    /// `size` bytes from `malloc(param, size, device)`, given back with `free(param, ptr,
    /// device)` once the memory is dropped and the device has finished the work queued before
    /// (as our own memory is); `owner` (what keeps the functions and `param` alive) is let go
    /// after that. The pointer must be device memory the driver knows, holding `size` bytes. A
    /// null from `malloc` is `CUDA_ERROR_OUT_OF_MEMORY`. Zero bytes call nothing, as in CuPy.
    /// Returns the memory and the offset of the pointer in the allocation that holds it.
    pub fn alloc(&self, device: usize, size: u64, owner: Option<Keep>) -> Result<(DeviceMemory, u64)> {
        self.check()?;
        if size == 0 {
            return Ok((DeviceMemory::alloc(device, 0)?, 0));
        }
        let ptr = self.call_malloc(size, device)?;
        if ptr == 0 {
            return Err(Error::cuda(
                Code::CUDA_ERROR_OUT_OF_MEMORY,
                format!("the CFunctionAllocator's malloc returned null for {size} bytes on device {device}"),
            ));
        }
        // From here the pointer is given back by `CFree`'s drop, on failure too.
        let release: Keep = Box::new(CFree { f: *self, ptr, device: device as i32, owner });
        DeviceMemory::foreign(device, ptr, size, Some(release))
    }

    #[cfg(not(target_family = "wasm"))]
    fn call_malloc(&self, size: u64, device: usize) -> Result<u64> {
        let size = usize::try_from(size).map_err(|_| Error::range(format!("{size} bytes do not fit a size_t")))?;
        // SAFETY: `check` found the address in this process's code; that it is a function of
        // `MallocFn`'s signature is the caller's word, as with CuPy's CFunctionAllocator.
        let malloc = unsafe { std::mem::transmute::<usize, MallocFn>(self.malloc as usize) };
        // SAFETY: as above; `param` is passed through untouched.
        let p = unsafe { malloc(self.param as usize as *mut std::ffi::c_void, size, device as i32) };
        Ok(p as usize as u64)
    }

    #[cfg(target_family = "wasm")]
    fn call_malloc(&self, _size: u64, _device: usize) -> Result<u64> {
        unreachable!("check() refuses every CFunctionAllocator on WebAssembly")
    }
}

/// A pointer from a C malloc: freed with its C free when dropped, then its owner let go.
// Never made on WebAssembly, where `check` refuses every allocator.
#[cfg_attr(target_family = "wasm", allow(dead_code))]
struct CFree {
    f: CFunctions,
    ptr: u64,
    device: i32,
    owner: Option<Keep>,
}

impl Drop for CFree {
    fn drop(&mut self) {
        #[cfg(not(target_family = "wasm"))]
        {
            // SAFETY: as for malloc in `call_malloc`: checked to be code, its signature the caller's word.
            let free = unsafe { std::mem::transmute::<usize, FreeFn>(self.f.free as usize) };
            let param = self.f.param as usize as *mut std::ffi::c_void;
            // SAFETY: `ptr` came from this allocator's malloc and is freed once, here.
            unsafe { free(param, self.ptr as usize as *mut std::ffi::c_void, self.device) };
        }
        drop(self.owner.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_where_no_code_is_is_refused() {
        let f = CFunctions { malloc: 0, free: 0, param: 0 };
        assert!(matches!(f.check(), Err(Error::Range(_))));
        let data = Box::new(0u64);
        let heap = &*data as *const u64 as u64;
        if executable(heap).is_some() {
            let f = CFunctions { malloc: heap, free: heap, param: 0 };
            assert!(matches!(f.check(), Err(Error::Range(m)) if m.contains("malloc")));
            let code = executable as fn(u64) -> Option<bool> as usize as u64;
            assert_eq!(executable(code), Some(true));
        }
    }
}
