//! An amdgpu kernel crate in the bare `extern "gpu-kernel"` ABI whose host is HIP (or a
//! Vulkan/ash loader): the host allocates device buffers and passes their addresses. The crate
//! never uses rustc offload (no `#[rustc_offload_kernel]`, no `offload` launch), so nothing is
//! copied by a parameter's type and raw pointers are the way buffers arrive.

#![feature(abi_gpu_kernel, link_llvm_intrinsics)]
#![no_std]

unsafe extern "C" {
    #[link_name = "llvm.amdgcn.workitem.id.x"]
    fn workitem_id_x() -> u32;
    #[link_name = "llvm.amdgcn.workgroup.id.x"]
    fn workgroup_id_x() -> u32;
}

#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// One generation of a `width x height` board with wrap-around edges; threads outside the board return.
#[unsafe(no_mangle)]
pub unsafe extern "gpu-kernel" fn step(current: *const u8, next: *mut u8, width: u32, height: u32) {
    let cell = workgroup_id_x() * 64 + workitem_id_x();
    if cell >= width * height {
        return;
    }
    let (x, y) = (cell % width, cell / width);
    let mut alive = 0u32;
    for dy in [height - 1, 0, 1] {
        for dx in [width - 1, 0, 1] {
            if dx == 0 && dy == 0 {
                continue;
            }
            let n = ((y + dy) % height) * width + (x + dx) % width;
            alive += *current.add(n as usize) as u32;
        }
    }
    let me = *current.add(cell as usize);
    *next.add(cell as usize) = (alive == 3 || (alive == 2 && me == 1)) as u8;
}

//@ case: correct
// Counts live cells with an atomic add into one device counter.
#[unsafe(no_mangle)]
pub unsafe extern "gpu-kernel" fn population(board: *const u8, cells: u32, count: *mut u32) {
    let cell = workgroup_id_x() * 64 + workitem_id_x();
    if cell < cells && *board.add(cell as usize) == 1 {
        core::sync::atomic::AtomicU32::from_ptr(count).fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }
}
