//! Device kernels of the denoiser. Images are row-major `width x height` f32 planes.

use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

//@ case: correct
// Binary mask from a threshold: `DisjointSlice::get_mut(idx)` bounds the thread, and the input is read at the same index.
#[cuda_module]
pub mod kernels {
    use super::*;

    #[kernel]
    pub fn threshold(src: &[f32], level: f32, mut mask: DisjointSlice<u8>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(m) = mask.get_mut(idx) {
            *m = if src[i] > level { 255 } else { 0 };
        }
    }

    //@ case: correct
    // 3 x 3 box blur between two buffers: 2-D index from `index_2d_col()` / `index_2d_row()`, guarded by `x < width && y < height`, neighbours clamped to the image.
    #[kernel]
    pub unsafe fn box_blur3(src: *const f32, dst: *mut f32, width: u32, height: u32) {
        let x = thread::index_2d_col();
        let y = thread::index_2d_row();
        let (w, h) = (width as usize, height as usize);
        if x < w && y < h {
            let mut acc = 0.0f32;
            let mut dy = 0usize;
            while dy < 3 {
                let yy = (y + dy).saturating_sub(1).min(h - 1);
                let mut dx = 0usize;
                while dx < 3 {
                    let xx = (x + dx).saturating_sub(1).min(w - 1);
                    acc += unsafe { *src.add(yy * w + xx) };
                    dx += 1;
                }
                dy += 1;
            }
            unsafe {
                *dst.add(y * w + x) = acc / 9.0;
            }
        }
    }
}
