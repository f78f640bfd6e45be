"""Exact messages of kernel_decl_mismatch and malformed_offload_launch (their detection is
measured by the corpus, tests/corpus/)."""

from helpers import dedent, lint


def test_a_declaration_with_one_parameter_says_parameter_not_parameters():
    src = dedent("""
        #[rustc_offload_kernel]
        pub extern "gpu-kernel" fn fill(y: &mut [f32; 4], v: &f32) {
            let _ = (y, v);
        }
        unsafe extern "C" {
            fn fill(y: &mut [f32; 4]);
        }
        """)
    assert lint(src, "kernel_decl_mismatch") == [
        (6, 8, 6, 12, "this host declaration of kernel `fill` has 1 parameter; the device kernel has 2 parameters"),
    ]


def test_a_negative_device_shows_the_source_text_and_its_value():
    src = dedent("""
        const DEV: i32 = -2;
        #[core::offload::offload_kernel]
        fn k(x: &mut [f32; 4]) { x[0] = 1.0; }
        fn main() {
            let mut x = [0.0f32; 4];
            core::offload::offload! { kernel = k, device = DEV, args = (&mut x,) };
            core::offload::offload! { kernel = k, device = -1, args = (&mut x,) };
        }
        """)
    tail = (": the device number must be 0 or more (rustc checks it at compile time); "
            "leave `device` out for the default device")
    assert lint(src, "malformed_offload_launch") == [
        (6, 52, 6, 55, "`device = DEV` (= -2)" + tail),
        (7, 52, 7, 54, "`device = -1`" + tail),
    ]


def test_a_scalar_parameter_behind_a_type_alias_is_checked():
    src = dedent("""
        use cuda_std::prelude::*;
        type Real = f64;
        #[kernel]
        pub unsafe fn k(a: f32, r: Real, x: *mut f32) {
            let i = thread::index_1d() as usize;
            *x.add(i) = a + r as f32;
        }
        fn run(module: &Module, stream: &Stream, x: &DeviceBuffer<f32>) -> CudaResult<()> {
            unsafe {
                launch!(module.k<<<1, 32, 0, stream>>>(1.0, 0.5, x.as_device_ptr()))?;
                launch!(module.k<<<1, 32, 0, stream>>>(1, 0.5f32, x.as_device_ptr()))?;
            }
            Ok(())
        }
        """)
    head = "argument {} of this launch of `k` is the literal `{}`, but the kernel's parameter is `{}`: "
    assert [m for *_, m in lint(src, "launch_arg_mismatch")] == [
        head.format(1, "1", "a: f32") + "an integer where the kernel expects `f32`",
        head.format(2, "0.5f32", "r: Real") + "a value of type `f32` where the kernel expects `f64`",
    ]
