//! Stand-in for Rust-CUDA's `cust` (host side): `Module`, `Stream` and `launch!`, with the
//! same call syntax as the real crate, running each kernel on the CPU once per emulated GPU
//! thread, sequentially.

use std::fmt;

/// The error type of the stand-in API (never produced by the CPU emulation).
#[derive(Debug)]
pub struct CudaError(pub &'static str);

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CUDA error: {}", self.0)
    }
}

impl std::error::Error for CudaError {}

pub type CudaResult<T> = Result<T, CudaError>;

/// A loaded PTX module (the stand-in keeps nothing: kernels are ordinary Rust functions).
pub struct Module(());

impl Module {
    pub fn from_ptx(_ptx: &str, _options: &[()]) -> CudaResult<Module> {
        Ok(Module(()))
    }
}

/// Stream creation flags, as in cust.
pub struct StreamFlags;

impl StreamFlags {
    pub const NON_BLOCKING: StreamFlags = StreamFlags;
}

/// A CUDA stream; launches on the stand-in complete before `launch!` returns.
pub struct Stream(());

impl Stream {
    pub fn new(_flags: StreamFlags, _priority: Option<i32>) -> CudaResult<Stream> {
        Ok(Stream(()))
    }

    pub fn synchronize(&self) -> CudaResult<()> {
        Ok(())
    }
}

/// Run `kernel` once per thread of a `grid` x `block` launch (x dimension), sequentially.
#[doc(hidden)]
pub fn __run_grid(grid: u32, block: u32, mut kernel: impl FnMut()) {
    for b in 0..grid {
        for t in 0..block {
            cuda_std::thread::__set_position(grid, block, b, t);
            kernel();
        }
    }
}

/// `launch!(module.kernel<<<grid, block, shared_mem_bytes, stream>>>(args..))`, the syntax of
/// cust's `launch!`; must be used inside `unsafe`. Returns `CudaResult<()>`.
#[macro_export]
macro_rules! launch {
    ($module:ident . $function:ident <<<$grid:expr, $block:expr, $shared:expr, $stream:ident>>>( $($arg:expr),* $(,)? )) => {{
        let _: &$crate::Module = &$module;
        let _: &$crate::Stream = &$stream;
        let _: u32 = $shared;
        $crate::__run_grid($grid, $block, || $function($($arg),*));
        $crate::CudaResult::Ok(())
    }};
}

pub mod prelude {
    pub use crate::{CudaResult, Module, Stream, StreamFlags, launch};
}
