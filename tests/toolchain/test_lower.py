"""Lowering today's upstream offload spelling for rustc 1.96's LLVM-tools pipeline
(toolchain/lower.py): what the generated copy holds, the user's files untouched, every bad input
a diagnostic on the right line, and (with the Debian toolchain) the upstream-style example
built and run on libomptarget's Virtual Host Device with correct results."""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from pathlib import Path

import pytest

from offload_ls.toolchain.diagnostics import SpanRef
from offload_ls.toolchain.lower import lower_crate
from offload_ls.toolchain.lower_map import map_span
from offload_ls.toolchain.lower_scan import uses_upstream_spelling

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "upstream-offload"

CARGO = """[package]
name = "t"
version = "0.1.0"
edition = "2024"

[profile.release]
panic = "abort"
lto = "fat"
"""

HEAD = """#![feature(gpu_offload, rustc_attrs)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx))]
#![cfg_attr(device, no_std)]
#![cfg_attr(device, no_main)]
#![allow(internal_features)]
#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x, _syncthreads};
use core::offload::offload_kernel;
#[cfg(device)]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }
"""


def crate(tmp_path: Path, body: str, name: str = "t") -> Path:
    root = tmp_path / name
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text(CARGO)
    (root / "src" / "main.rs").write_text(HEAD + body)
    return root


def tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and "target" not in p.relative_to(root).parts}


def line_of(path: Path, offset: int) -> int:
    return path.read_bytes().count(b"\n", 0, offset) + 1


def line_containing(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def test_the_example_lowers_with_one_entry_per_instantiation(tmp_path):
    src = tmp_path / "ex"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    before = tree_digest(src)
    out = src / "target" / "offload-ls" / "lowered" / "upstream-offload"
    low = lower_crate(src, out, emulate_grid=True)
    assert low is not None and low.ok, low.issues
    assert {k: sorted(v) for k, v in low.kernels.items()} == {
        "saxpy": ["saxpy"], "scale": ["scale__f32", "scale__f64"], "jacobi": ["jacobi"]}
    assert tree_digest(src) == before  # the user's files are untouched
    text = (out / "src" / "main.rs").read_text()
    assert "#![feature(rustc_attrs)]" in text and "gpu_offload" not in text.split("//!")[0]
    assert "offload!" not in text.replace("core::offload::offload!`", "")
    assert text.count('extern "gpu-kernel" fn') == 4 and text.count("core::intrinsics::offload::<_, _, ()>(") == 4
    assert 'pub extern "gpu-kernel" fn scale__f32(a: &f32, x: &mut [f32; N]' in text  # T := f32, by value -> &
    assert "__offload_ls_scale::<f32>(*a, x)" in text
    assert (out / "Cargo.toml").read_text().rstrip().endswith("[workspace]")
    # a byte of a kernel body maps back to the same byte of the user's file
    gen = out / "src" / "main.rs"
    g = gen.read_bytes().index(b"next[c] = 0.25")
    m = map_span(low, SpanRef(gen, g, g + 7))
    assert m.file == src / "src" / "main.rs"
    assert m.file.read_bytes()[m.start:m.end] == b"next[c]"
    assert m.line == line_containing(m.file, "next[c] = 0.25")


def test_a_second_lowering_rewrites_nothing(tmp_path):
    src = tmp_path / "ex"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    out = tmp_path / "low"
    lower_crate(src, out, emulate_grid=False)
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    lower_crate(src, out, emulate_grid=False)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    assert "__offload_ls_grid" not in (out / "src" / "main.rs").read_text()  # no host image: no grid


def test_a_crate_in_the_196_spelling_is_not_lowered(tmp_path):
    src = tmp_path / "old"
    shutil.copytree(EXAMPLE.parent / "offload-kernels", src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    assert not uses_upstream_spelling(src)
    assert lower_crate(src, tmp_path / "low", emulate_grid=True) is None
    assert not (tmp_path / "low").exists()


BAD = {
    "mixed spellings": ("""
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(device)]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn old_style(x: &mut [f32; 4]) { x[0] = 2.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, args = (&mut x,) } }
""", "error", "pub extern \"gpu-kernel\" fn old_style", "mixes spellings"),
    "launch of a non-kernel": ("""
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
fn helper(x: &mut [f32; 4]) { x[1] = 1.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = helper, args = (&mut x,) } }
""", "error", "kernel = helper", "`helper` is not an offload kernel"),
    "generic kernel never instantiated": ("""
#[offload_kernel]
pub fn fill<T: Copy>(v: T, x: &mut [T; 4]) { x[0] = v; }
#[cfg(not(device))]
fn main() {}
""", "warning", "pub fn fill<T: Copy>", "never instantiated"),
    "generic kernel without type arguments": ("""
#[offload_kernel]
pub fn fill<T: Copy>(v: T, x: &mut [T; 4]) { x[0] = v; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, args = (1.0f32, &mut x) } }
""", "error", "kernel = fill", "`kernel = fill::<f32>`"),
    "barrier on the host image": ("""
#[cfg(device)]
fn sync() { unsafe { _syncthreads() } }
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { sync(); x[0] = 1.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, args = (&mut x,) } }
""", "error", "fn sync() { unsafe { _syncthreads() } }", "cannot be emulated"),
    "dyn_cache": ("""
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, dyn_cache = 128, args = (&mut x,) } }
""", "error", "dyn_cache = 128", "dynamic shared memory"),
    "device": ("""
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, device = 1, args = (&mut x,) } }
""", "error", "device = 1", "OMP_DEFAULT_DEVICE"),
    "Region on rustc 1.96": ("""
use core::offload::Region;
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() {}
""", "error", "use core::offload::Region;", "no `core::offload::Region`"),
    "missing args": ("""
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() { core::offload::offload! { kernel = fill } }
""", "error", "core::offload::offload! { kernel = fill }", "without `args`"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_is_a_diagnostic_on_its_line(tmp_path, case):
    body, level, line_text, message = BAD[case]
    root = crate(tmp_path, body)
    low = lower_crate(root, tmp_path / "low", emulate_grid=True)
    assert low is not None
    found = [(i.level, line_of(i.file, i.start), i.message) for i in low.issues]
    want_line = line_containing(root / "src" / "main.rs", line_text)
    assert any(lv == level and ln == want_line and message in msg for lv, ln, msg in found), found
    assert low.ok == (level != "error")


def test_a_barrier_is_fine_without_the_host_image(tmp_path):
    root = crate(tmp_path, BAD["barrier on the host image"][0])
    low = lower_crate(root, tmp_path / "low", emulate_grid=False)
    assert low is not None and low.ok and low.issues == []


# ------------------------------------------------------------------ with the Debian toolchain

@pytest.mark.toolchain
def test_the_upstream_example_runs_on_the_virtual_host_device(doctor_report, tmp_path):
    from offload_ls.workflow import run_crate

    src = tmp_path / "upstream-offload"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    before = tree_digest(src)
    outcome = asyncio.run(run_crate(src / "Cargo.toml", doctor_report, device_image="host"))
    assert outcome.build.ok, [d.message for d in outcome.build.diagnostics]
    assert outcome.report is not None and outcome.report.exit_status == 0, outcome.report
    out = outcome.report.stdout
    for name, n in (("saxpy", 100000), ("scale::<f32>", 100000), ("scale::<f64>", 100000), ("jacobi", 49152)):
        assert f"OK {name}: {n} elements" in out, out
    assert sorted(launch.kernel for launch in outcome.report.log.launches) == [
        "jacobi", "saxpy", "scale__f32", "scale__f64"]
    assert tree_digest(src) == before
    new_files = {p.relative_to(src) for p in src.rglob("*") if p.is_file()} - {
        p.relative_to(EXAMPLE) for p in EXAMPLE.rglob("*") if p.is_file()}
    assert {p.parts[:2] for p in new_files} == {("target", "offload-ls")}, new_files


@pytest.mark.toolchain
def test_a_compiler_error_in_the_copy_lands_on_the_users_line(doctor_report, tmp_path):
    from offload_ls.workflow import build_crate

    src = tmp_path / "broken"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    main = src / "src" / "main.rs"
    main.write_text(main.read_text().replace("x[i] = a * x[i];", "x[i] = a * x[i] + 1u8;"))
    outcome = asyncio.run(build_crate(src / "Cargo.toml", doctor_report, device_image="host"))
    assert not outcome.ok
    errors = [d for d in outcome.diagnostics if d.level == "error"]
    assert errors and errors[0].span is not None
    assert errors[0].span.file == main
    assert errors[0].span.line == line_containing(main, "x[i] = a * x[i] + 1u8;")
    assert main.read_bytes()[errors[0].span.start:errors[0].span.end].startswith(b"+") or \
        b"1u8" in main.read_bytes()[errors[0].span.start - 8:errors[0].span.end + 4]


WS = Path(__file__).parent / "fixtures" / "upstream-ws"


def copy_ws(dst: Path) -> Path:
    """The workspace fixture without its build output (its `app/src/target` module is kept)."""
    shutil.copytree(WS, dst, ignore=lambda d, names: [n for n in names if n == "Cargo.lock"
                                                      or (n == "target" and Path(d) == WS)])
    return dst


def test_fields_are_parsed_as_rust(tmp_path):
    """Commas inside `::<A, B>` and inside call arguments, comments before fields, `0u32`."""
    root = crate(tmp_path, """
type Wide = u64;
#[offload_kernel]
pub fn convert<T: Copy, U: From<T>>(x: &[T; 4], y: &mut [U; 4]) { y[0] = U::from(x[0]); }
fn conv<A, B>(a: A) -> A { a }
#[cfg(not(device))]
fn main() {
    let x = [1u16; 4]; let mut y = [0u64; 4];
    core::offload::offload! {
        // which kernel
        kernel = convert::<u16, Wide>,
        /* grid */ workgroup_dim = [2, 1, 1],
        dyn_cache = 0u32,
        args = (conv::<&[u16; 4], u8>(&x), &mut y,),
    }
}
""")
    low = lower_crate(root, tmp_path / "low", emulate_grid=True)
    assert low is not None and low.ok, low.issues
    assert low.kernels == {"convert": ["convert__u16_Wide"]}
    text = (tmp_path / "low" / "src" / "main.rs").read_text()
    assert "let __offload_ls_wg: [u32; 3] = [2, 1, 1];" in text  # the commented field was read
    assert "__offload_ls_args_convert__u16_Wide(conv::<&[u16; 4], u8>(&x), &mut y, )" in text
    assert "pub type __offload_ls_convert__u16_Wide_1 = Wide;" in text


def test_a_negative_device_is_upstreams_error(tmp_path):
    root = crate(tmp_path, """
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() { let mut x = [0.0f32; 4]; core::offload::offload! { kernel = fill, device = -1, args = (&mut x,) } }
""")
    low = lower_crate(root, tmp_path / "low", emulate_grid=False)
    assert [i.message for i in low.issues] == [
        "offload device must be non-negative; omit `device` to use the default device"]


def test_features_enabled_under_cfg_attr_are_not_enabled_twice(tmp_path):
    root = crate(tmp_path, """
#[offload_kernel]
pub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }
#[cfg(not(device))]
fn main() {}
""")
    main = root / "src" / "main.rs"
    main.write_text("#![cfg_attr(not(device), feature(core_intrinsics))]\n" + main.read_text())
    lower_crate(root, tmp_path / "low", emulate_grid=False)
    text = (tmp_path / "low" / "src" / "main.rs").read_text()
    assert "feature(core_intrinsics)" in text and text.count("core_intrinsics") == 1
    assert text.count("feature(rustc_attrs)") == 1  # HEAD enables it unconditionally


def test_kernels_of_the_library_are_an_error_when_the_binary_is_built(tmp_path):
    root = crate(tmp_path, "#[cfg(not(device))]\nfn main() {}\n")
    (root / "src" / "lib.rs").write_text(HEAD + "#[offload_kernel]\npub fn fill(x: &mut [f32; 4]) { x[0] = 1.0; }\n")
    low = lower_crate(root, tmp_path / "low", emulate_grid=False,
                      crate_roots=(root / "src" / "main.rs", root / "src" / "lib.rs"),
                      built_root=root / "src" / "main.rs", lib_root=root / "src" / "lib.rs")
    assert [(i.level, i.file.name) for i in low.issues] == [("error", "lib.rs")]
    assert "cargo passes the device cfg to that target only" in low.issues[0].message


def test_the_workspace_is_mirrored_and_modules_resolved(tmp_path):
    ws = copy_ws(tmp_path / "ws")
    app = ws / "app"
    low = lower_crate(app, tmp_path / "low", emulate_grid=False, workspace_root=ws,
                      crate_roots=(app / "src" / "main.rs",), built_root=app / "src" / "main.rs")
    assert low is not None and low.ok, low.issues
    assert low.kernels == {"add1": ["kernels__a__add1", "kernels__b__add1"], "convert": ["convert__u16_Wide"],
                           "scale_into": ["scale_into"], "säxpy": ["s_u00e4_xpy"]}
    assert (tmp_path / "low" / "Cargo.toml").read_text() == (ws / "Cargo.toml").read_text()  # inheritance intact
    assert (tmp_path / "low" / "util" / "src" / "lib.rs").exists()  # the path dependency's place
    assert (tmp_path / "low" / "app" / "src" / "target" / "mod.rs").exists()  # a module called `target`
    assert low.manifest == tmp_path / "low" / "app" / "Cargo.toml"


@pytest.mark.toolchain
def test_the_workspace_member_runs_on_the_virtual_host_device(doctor_report, tmp_path):
    from offload_ls.workflow import run_crate

    ws = copy_ws(tmp_path / "ws")
    before = tree_digest(ws)
    outcome = asyncio.run(run_crate(ws / "app" / "Cargo.toml", doctor_report, device_image="host"))
    assert outcome.build.ok, [(d.message, d.span) for d in outcome.build.diagnostics]
    assert outcome.report is not None and outcome.report.exit_status == 0, outcome.report.stdout
    for name in ("add1", "convert::<u16, Wide>", "scale_into", "säxpy"):
        assert f"OK {name}" in outcome.report.stdout.splitlines(), outcome.report.stdout
    assert sorted(la.kernel for la in outcome.report.log.launches) == [
        "convert__u16_Wide", "kernels__a__add1", "kernels__b__add1", "s_u00e4_xpy", "scale_into"]
    assert tree_digest(ws) == before
    assert not (ws / "Cargo.lock").exists() and not (ws / "app" / "Cargo.lock").exists()


@pytest.mark.toolchain
def test_a_launch_argument_of_the_wrong_type_is_an_error_on_it(doctor_report, tmp_path):
    from offload_ls.workflow import build_crate

    ws = copy_ws(tmp_path / "ws")
    main = ws / "app" / "src" / "main.rs"
    main.write_text(main.read_text().replace("args = (&mut *a, 2.0f32)", "args = (&mut *a, 2.0f64)"))
    outcome = asyncio.run(build_crate(ws / "app" / "Cargo.toml", doctor_report, device_image="host"))
    assert not outcome.ok
    errors = [d for d in outcome.diagnostics if d.level == "error" and d.span is not None]
    assert errors, [d.message for d in outcome.diagnostics]
    first = errors[0]
    assert first.span.file == main and "mismatched types" in first.message, (first.message, first.span)
    assert first.span.line == line_containing(main, "args = (&mut *a, 2.0f64)")
    assert main.read_bytes()[first.span.start:first.span.end] == b"2.0f64"


@pytest.mark.toolchain
def test_the_assembly_view_maps_to_the_users_lines(doctor_report, tmp_path):
    from offload_ls.workflow import assemble_crate

    src = tmp_path / "upstream-offload"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    outcome = asyncio.run(assemble_crate(src / "Cargo.toml", doctor_report))
    assert outcome.ok, [d.message for d in outcome.diagnostics]
    listing = outcome.listing("ptx" if "ptx" in outcome.files else "amdgcn")
    main = src / "src" / "main.rs"
    mapped = listing.line_map(str(main))
    assert mapped, "no PTX line maps to the user's main.rs"
    n_lines = main.read_text().count("\n") + 1
    assert all(1 <= line <= n_lines for _, line in mapped)
    body = line_containing(main, "next[c] = 0.25 * (u[c - 1] + u[c + 1] + u[c - NX] + u[c + NX]);")
    assert any(line == body for _, line in mapped), sorted({line for _, line in mapped})
    assert not any("lowered" in loc.path for chain in listing.locs for loc in chain)


SECOND_ROUND = """
mod kernels {
    #[cfg(target_arch = "nvptx64")]
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    pub const K: u32 = 10;
    #[cfg(device)]
    fn gid() -> usize { unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize } }
    /// out[i] = x[i] + C
    #[core::offload::offload_kernel]
    pub fn addc<const C: u32>(x: &[u32; 64], out: &mut [u32; 64]) {
        let i = gid();
        if i < 64 { out[i] = x[i] + C; }
    }
    #[core::offload::offload_kernel]
    pub fn add(out: &mut [u32; 64], v: u32) {
        let i = gid();
        if i < 64 { out[i] += v; }
    }
}
use kernels::add;
use kernels::K;
mod single { pub const C: u32 = 1; }
mod double { pub const C: u32 = 2; }

#[cfg(not(device))]
struct Solver { out: [u32; 64] }
#[cfg(not(device))]
impl Solver {
    fn bump(&mut self) {
        core::offload::offload! { kernel = add, workgroup_dim = [2, 1, 1], thread_dim = [32, 1, 1], \
args = (&mut self.out, 100u32) }
    }
}

#[cfg(not(device))]
fn main() {
    let x = [1u32; 64];
    let mut a = [0u32; 64];
    let mut b = [0u32; 64];
    let mut c = [0u32; 64];
    let mut d = [0u32; 64];
    core::offload::offload!(kernel = kernels::addc::<{ single::C }>, workgroup_dim = [2, 1, 1], \
thread_dim = [32, 1, 1], args = (&x, &mut a));
    core::offload::offload!(kernel = kernels::addc::<{ double::C }>, workgroup_dim = [2, 1, 1], \
thread_dim = [32, 1, 1], args = (&x, &mut b));
    core::offload::offload! { kernel = kernels::addc::<{ K + 1 }>, workgroup_dim = [2, 1, 1], \
thread_dim = [32, 1, 1], args = (&x, &mut c) }
    core::offload::offload! { kernel = kernels::addc::<{ K - 1 }>, workgroup_dim = [2, 1, 1], \
thread_dim = [32, 1, 1], args = (&x, &mut d) }
    let mut s = Solver { out: [0; 64] };
    s.bump();
    println!("a={} b={} c={} d={} s={}", a[63], b[63], c[63], d[63], s.out[63]);
}
"""


@pytest.mark.toolchain
def test_second_round_of_user_crates(doctor_report, tmp_path):
    """Same-named constants in two modules are two instances; `{ K + 1 }` and `{ K - 1 }` too;
    `offload!(..);` with parentheses; a launch in a method; a kernel brought in by `use`; an
    example and a second binary with kernels of their own are left alone."""
    from offload_ls.workflow import run_crate

    root = crate(tmp_path, "")
    (root / "src" / "main.rs").write_text(HEAD.replace("_syncthreads", "_block_idx_x as _b")
                                          .replace("use core::offload::offload_kernel;\n", "") + SECOND_ROUND)
    (root / "examples").mkdir()
    (root / "examples" / "demo.rs").write_text(HEAD + "#[offload_kernel]\npub fn add(x: &mut [u32; 4]) { x[0] = 1; }\n"
                                               "#[cfg(not(device))]\nfn main() {}\n")
    (root / "src" / "bin").mkdir()
    (root / "src" / "bin" / "other.rs").write_text(HEAD + "#[offload_kernel]\n"
                                                   "pub fn sub(x: &mut [u32; 4]) { x[0] = 1; }\n"
                                                   "#[cfg(not(device))]\nfn main() {}\n")
    outcome = asyncio.run(run_crate(root / "Cargo.toml", doctor_report, device_image="host", bin_name="t"))
    assert outcome.build.ok, [(d.message, d.span) for d in outcome.build.diagnostics]
    assert outcome.report is not None and outcome.report.exit_status == 0, outcome.report
    assert outcome.report.stdout.strip() == "a=2 b=3 c=12 d=10 s=100"
