"""Names resolved across a crate's files by `offload-ls check DIR`: a kernel named
through another crate, a `use`, or a macro is not "unknown"; a `static mut` declared in
another file is still a `static mut`; another crate's `Vec` is not `std`'s; cust's
`launch!` passes a slice as two arguments; editor lock files are no source files."""

from __future__ import annotations

import os


def _crate(root, files: dict[str, str]):
    (root / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n')
    (root / "src").mkdir()
    for name, text in files.items():
        (root / "src" / name).write_text(text)


def _findings(out: str) -> list[str]:
    """The finding lines of `check`'s text output (not its notes or summary)."""
    return [ln for ln in out.splitlines() if ln.startswith("src/")]


KERNELS = """#[rustc_offload_kernel]
pub extern "gpu-kernel" fn fill(y: &mut [f32; 256]) {
    let i = unsafe { core::arch::nvptx::_thread_idx_x() } as usize;
    if i < 256 { y[i] = 1.0; }
}
"""


def test_only_a_name_the_crate_cannot_have_is_an_unknown_kernel(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {
        "kernels.rs": KERNELS + "make_kernel!(gen_fill);\n",
        "main.rs": """mod kernels;
use otherk::remote_fill;
fn main() {
    let mut y = [0.0f32; 256];
    core::intrinsics::offload(otherk::fill2, [1, 1, 1], [256, 1, 1], (&mut y,));
    core::intrinsics::offload(remote_fill, [1, 1, 1], [256, 1, 1], (&mut y,));
    core::intrinsics::offload(kernels::gen_fill, [1, 1, 1], [256, 1, 1], (&mut y,));
    core::intrinsics::offload(kernels::fil, [1, 1, 1], [256, 1, 1], (&mut y,));
}
""",
    })
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", ".")
    # otherk::fill2 (a dependency's path), remote_fill (a `use` from another crate) and
    # gen_fill (an item macro may define it) are not reported; `fil` is a typo of `fill`
    assert out.splitlines() == [
        "src/main.rs:8:40: error[unknown_launch_kernel]: this launch names `fil`, but no function of "
        "that name is defined in the crate; did you mean `fill`?",
        "1 error, 0 warnings in 2 files",
    ]
    assert rc == 1


def test_a_name_in_a_file_that_does_not_parse_is_not_reported_unknown(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {
        "kernels.rs": KERNELS.replace("pub extern", "pub extern \"gpu-kernel\" fn half_done(y: &mut [f32; 256]) {\n"
                                      "    let i = (\n}\n\n#[rustc_offload_kernel]\npub extern", 1),
        "main.rs": """mod kernels;
fn main() {
    let mut y = [0.0f32; 256];
    core::intrinsics::offload(kernels::half_done, [1, 1, 1], [256, 1, 1], (&mut y,));
}
""",
    })
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", "--format", "json", ".")
    assert "unknown_launch_kernel" not in out
    assert rc == 0


def test_a_static_mut_declared_in_another_file_is_reported_where_the_kernel_uses_it(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {
        "state.rs": "pub static mut HITS: u32 = 0;\n",
        "kernels.rs": """use crate::state::HITS;
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn count(y: &mut [f32; 256]) {
    let i = unsafe { core::arch::nvptx::_thread_idx_x() } as usize;
    if i < 256 {
        y[i] = 1.0;
        unsafe { HITS += 1; }
    }
}
""",
        "main.rs": "mod kernels;\nmod state;\nfn main() {}\n",
    })
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", ".")
    lines = _findings(out)
    assert [ln.split(": ")[0:2] for ln in lines] == [
        ["src/kernels.rs:7:9", "warning[unsafe_in_kernel]"],
        ["src/kernels.rs:7:18", "error[static_mut_in_kernel]"]], out
    assert "accesses `static mut HITS`" in lines[0]
    assert "kernel `count` writes `static mut HITS`" in lines[1]
    assert out.splitlines()[-1] == "1 error, 1 warning in 3 files"
    assert rc == 1


def test_another_crates_vec_is_not_std_vec(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {
        "kernels.rs": """use heapless::Vec;
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn gather(y: &mut [f32; 256]) {
    let i = unsafe { core::arch::nvptx::_thread_idx_x() } as usize;
    let mut a: Vec<f32, 4> = Vec::new();
    let mut b = heapless::Vec::<f32, 4>::new();
    a.push(1.0).ok();
    b.push(2.0).ok();
    if i < 256 { y[i] = a[0] + b[0]; }
}
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn grow(y: &mut [f32; 256]) {
    let v = std::vec::Vec::<f32>::new();
    let i = unsafe { core::arch::nvptx::_thread_idx_x() } as usize;
    if i < 256 { y[i] = v.len() as f32; }
}
""",
    })
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", ".")
    lines = _findings(out)
    # only `std::vec::Vec` in `grow`; heapless's fixed-capacity Vec is fine in a kernel
    assert [ln.split(": ")[0:2] for ln in lines] == [["src/kernels.rs:13:13", "error[host_only_api_in_kernel]"]]
    assert rc == 1


def test_cust_slice_arguments_are_two_and_do_not_alias(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {
        "lib.rs": """use cuda_std::prelude::*;
#[kernel]
pub unsafe fn scale(x: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < x.len() { *out.add(i) = 2.0 * x[i]; }
}
pub fn run(module: &Module, stream: &Stream, x: &DeviceBuffer<f32>, out: &DeviceBuffer<f32>) -> CudaResult<()> {
    unsafe {
        launch!(module.scale<<<(x.len() as u32 + 255) / 256, 256, 0, stream>>>(
            x.as_device_ptr(), x.len(), out.as_device_ptr()))?;
        launch!(module.scale<<<(x.len() as u32 + 255) / 256, 256, 0, stream>>>(
            x.as_device_ptr(), x.len(), x.as_device_ptr()))?;
    }
    Ok(())
}
""",
    })
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli("check", ".")
    lines = _findings(out)
    # `x.len()` is the slice's length, for no buffer: only the second launch, which
    # passes `x` as both the input and the output, aliases
    assert [ln.split(": ")[0:2] for ln in lines] == [["src/lib.rs:12:41", "error[aliased_launch_args]"]], out
    assert "argument 1 (`x.as_device_ptr()`) and argument 3 (`x.as_device_ptr()`)" in lines[0]
    assert rc == 1


def test_an_editor_lock_file_is_skipped(cli, tmp_path, monkeypatch):
    _crate(tmp_path, {"main.rs": KERNELS + "fn main() {}\n"})
    os.symlink("user@host.4242:1700000000", tmp_path / "src" / ".#main.rs")  # what Emacs leaves
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", ".")
    assert out.splitlines() == ["0 errors, 0 warnings in 1 file"], out + err
    assert rc == 0
