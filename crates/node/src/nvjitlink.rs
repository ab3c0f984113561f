//! nvJitLink, CUDA's linker (cuda.core's `Linker`).

use crate::raw::{Bytes, NodeBuffer, Numbers, Strings};
use cuda_node_core::nvjitlink::{self, Input};
use cuda_node_core::Error;

crate::js_object! {
    /// What a link produced.
    pub struct LinkOutput {
        image: NodeBuffer = c"image",
        is_ptx: bool = c"isPtx",
        log: String = c"log",
    }
}

crate::exports! {
    /// nvJitLink's `[major, minor]`; `NVJITLINK_ERROR_NOT_FOUND` (naming what was looked for) without it.
    c"nvJitLinkVersion" => fn nvjitlink_version(_cx) -> Vec<u32> {
        let (a, b) = nvjitlink::version()?;
        Ok(vec![a, b])
    }

    /// Links inputs: `kinds[i]` and `names[i]` describe the `sizes[i]` bytes at their turn in
    /// `data`. `options` are nvJitLink's (`-arch=sm_90` needed).
    c"nvJitLinkLink" => fn nvjitlink_link(_cx, kinds: Strings, names: Strings, sizes: Numbers, data: Bytes, options: Strings) -> LinkOutput {
        if kinds.0.len() != names.0.len() || kinds.0.len() != sizes.0.len() {
            return Err(Error::range("kinds, names and sizes must be as long as each other"));
        }
        let mut inputs = Vec::with_capacity(kinds.0.len());
        let mut at = 0usize;
        for ((k, n), &s) in kinds.0.iter().zip(&names.0).zip(sizes.0) {
            if !s.is_finite() || s < 0.0 || s.fract() != 0.0 {
                return Err(Error::range("input sizes must be whole numbers"));
            }
            let end = at.checked_add(s as usize).filter(|&e| e <= data.0.len()).ok_or_else(|| Error::range("input sizes exceed the bytes given"))?;
            inputs.push((Input::parse(k)?, &data.0[at..end], n.clone()));
            at = end;
        }
        let out = nvjitlink::link(&inputs, &options.0)?;
        Ok(LinkOutput { image: NodeBuffer(out.image), is_ptx: out.is_ptx, log: out.log })
    }
}
