"""Figures read from compiled PTX (gpu/ptx_perf.py): on PTX that llc wrote for this project's
kernels (tests/gpu/data) and on small hand-written modules with each pattern."""

from __future__ import annotations

from pathlib import Path

from offload_ls.gpu.ptx_perf import analyze_ptx

DATA = Path(__file__).parent / "data"

MODULE = """\
.version 7.8
.target sm_90
.visible .func helper(
)
{
\tmul.rn.f32 \t%r1, %r2, %r3;
\tadd.rn.f32 \t%r4, %r1, %r5;
\tret;
}
.visible .entry k(
\t.param .u64 .ptr .align 1 k_param_0
)
{
\t.loc\t1 10 0
\tmul.rn.f64 \t%rd1, %rd2, %rd3;
\t.loc\t1 11 7
\tadd.rn.f64 \t%rd4, %rd5, %rd1;
\tmul.rn.f64 \t%rd6, %rd2, %rd2;
\tmul.rn.f64 \t%rd6, %rd6, %rd3;
\tadd.rn.f32 \t%r7, %r8, %r9;
\tsub.rn.f64 \t%rd7, %rd6, %rd4;
\tfma.rn.f64 \t%rd8, %rd7, %rd7, %rd7;
\tmul.lo.s64 \t%rd9, %rd8, 24;
\tsetp.gt.u64 \t%p1, %rd9, 99;
\t@%p1 bra \t$L__BB0_2;
\tret;
$L__BB0_2:
\t{ // callseq 1, 0
\tcall.uni _RNvNtCs1_4core9panicking18panic_bounds_check, ();
\t} // callseq 1
\texit;
}
\t.file\t1 "src/main.rs"
"""


def test_each_pattern_is_counted_in_its_entry():
    (k,) = analyze_ptx(MODULE)  # the .func is not an entry
    assert k.kernel == "k"
    # mul+add (line 11), mul+mul then sub reading the latest definition of %rd6: two pairs; an
    # add.rn.f32 whose operands no mul defined is not one
    assert (k.fp_instructions, k.fma, k.unfused, k.unfused_lines) == (7, 1, 2, ["src/main.rs:11"])
    assert (k.wide_int_mul, k.bounds_checks) == (1, 1)
    assert k.summary() == ("k: 7 FP instructions, 1 FMA, 2 multiply-add pairs unfused (at src/main.rs:11), "
                           "1 64-bit integer multiply, 1 bounds check left")
    advice = k.advice()
    assert advice.startswith("1 bounds check survived compilation (indexes the compiler could not prove in range")
    assert "2 multiply-add pairs are not fused" in advice and 'fp-contract = "fast"' in advice
    assert analyze_ptx(".visible .entry e(\n)\n{\n\tret;\n}\n")[0].advice() is None


def test_offload_kernels_ptx_from_llc():
    found = {k.kernel: k for k in analyze_ptx((DATA / "offload_kernels_sm90_lines.ptx").read_text())}
    assert sorted(found) == ["daxpy", "fir", "hash_u32", "saxpy", "triad"]
    assert (found["fir"].unfused, found["fir"].fma, found["fir"].bounds_checks) == (16, 0, 0)
    assert found["saxpy"].unfused_lines and all(":" in loc for loc in found["saxpy"].unfused_lines)
    assert found["hash_u32"].fp_instructions == 0 and found["hash_u32"].advice() is None


def test_pairs_only_within_a_block_and_functions_after_an_entry_are_not_its_own():
    ptx = """\
.visible .entry k(
)
{
\tmul.rn.f32 \t%r1, %r2, %r3;
\t@%p1 bra \t$L__BB0_2;
\tdiv.rn.f32 \t%r1, %r2, %r3;
$L__BB0_2:
\tadd.rn.f32 \t%r4, %r1, %r5;
\tret;
}
.func  (.param .b32 func_retval0) helper(
)
{
\tmul.rn.f32 \t%r1, %r2, %r3;
\tadd.rn.f32 \t%r4, %r1, %r5;
\tret;
}
"""
    (k,) = analyze_ptx(ptx)
    # the add reads %r1 through the branch (a phi): instruction selection does not fuse across
    # blocks, so it is no pair; the helper's pair is not the kernel's
    assert (k.fp_instructions, k.unfused) == (3, 0)
