//! Stand-in for Rust-CUDA's `cuda_std`, for running kernels on the CPU: `#[kernel]` and the
//! `thread` index functions, which read the (block, thread) that `cust::launch!`'s stand-in
//! is currently emulating.

pub use cuda_std_macros::kernel;

pub mod thread {
    //! Thread and block indices of the emulated GPU thread (x dimension only).
    use std::cell::Cell;

    #[derive(Clone, Copy)]
    struct Position {
        block_idx: u32,
        block_dim: u32,
        thread_idx: u32,
        grid_dim: u32,
    }

    thread_local! {
        static POSITION: Cell<Position> =
            const { Cell::new(Position { block_idx: 0, block_dim: 1, thread_idx: 0, grid_dim: 1 }) };
    }

    /// Called by the `launch!` stand-in before it runs the kernel as GPU thread
    /// (`block_idx`, `thread_idx`) of a `grid_dim` x `block_dim` launch.
    #[doc(hidden)]
    pub fn __set_position(grid_dim: u32, block_dim: u32, block_idx: u32, thread_idx: u32) {
        POSITION.set(Position { block_idx, block_dim, thread_idx, grid_dim });
    }

    pub fn thread_idx_x() -> u32 {
        POSITION.get().thread_idx
    }

    pub fn block_idx_x() -> u32 {
        POSITION.get().block_idx
    }

    pub fn block_dim_x() -> u32 {
        POSITION.get().block_dim
    }

    pub fn grid_dim_x() -> u32 {
        POSITION.get().grid_dim
    }

    /// Global 1D index: `block_idx_x * block_dim_x + thread_idx_x` (as in cuda_std).
    pub fn index_1d() -> u32 {
        let p = POSITION.get();
        p.block_idx * p.block_dim + p.thread_idx
    }
}
