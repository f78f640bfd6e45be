"""The device-IR kernel ABI rewrite (what rustc's -Zoffload=Device does)."""

import subprocess
from pathlib import Path

import pytest

from offload_ls.toolchain.kernel_abi import fix_kernel_abi, main, split_params

IR = """\
define dso_local ptx_kernel void @saxpy(ptr noalias noundef readonly align 4 captures(none) dereferenceable(4096) %x, \
float noundef %a, i32 %n) unnamed_addr #1 {
start:
  ret void
}

define internal void @helper() unnamed_addr #2 {
start:
  ret void
}

attributes #1 = { nounwind "offload-kernel" "target-cpu"="sm_90" }
attributes #2 = { nounwind }
"""


def test_kernel_gets_dyn_ptr_and_widened_scalars():
    out, names = fix_kernel_abi(IR)
    assert names == ["saxpy"]
    assert ("define internal void @saxpy.offload_inner(ptr noalias noundef readonly align 4 captures(none) "
            "dereferenceable(4096) %x, float noundef %a, i32 %n) unnamed_addr alwaysinline #1 {") in out
    wrapper = out.split("; kernel entry points with libomptarget's ABI (offload-ls kernel_abi)\n", 1)[1]
    assert wrapper == (
        # the pointer keeps noalias/readonly/align/dereferenceable: loads through it can use the
        # non-coherent cache (ld.global.nc) as nvcc's `const float* __restrict__` does
        "define dso_local ptx_kernel void @saxpy(ptr %dyn_ptr, ptr noalias noundef readonly align 4 captures(none) "
        "dereferenceable(4096) %arg0, i64 %arg1, i64 %arg2) #1 {\n"
        "entry:\n"
        "  %t1 = trunc i64 %arg1 to i32\n"
        "  %f1 = bitcast i32 %t1 to float\n"
        "  %t2 = trunc i64 %arg2 to i32\n"
        "  call void @saxpy.offload_inner(ptr %arg0, float %f1, i32 %t2)\n"
        "  ret void\n"
        "}\n")
    assert 'attributes #1 = { nounwind "target-cpu"="sm_90" }' in out  # attribute consumed
    assert "define internal void @helper() unnamed_addr #2 {" in out      # other functions untouched


def test_rewrite_is_idempotent():
    once, _ = fix_kernel_abi(IR)
    twice, names = fix_kernel_abi(once)
    assert names == []
    assert twice.count("@saxpy(") == 1


def test_entry_points_keep_only_pointer_attributes_that_hold_for_them():
    from offload_ls.toolchain.kernel_abi import KernelParam, pointer_attrs

    assert pointer_attrs(KernelParam("ptr", "noalias nocapture writeonly align 16 dereferenceable(64) %y")) == \
        "noalias nocapture writeonly align 16 dereferenceable(64) "
    # ABI attributes of the inner function's parameter are not the entry point's
    assert pointer_attrs(KernelParam("ptr", "byval([4 x i32]) align 4 %s")) == "align 4 "
    assert pointer_attrs(KernelParam("ptr", "sret({ i32 }) %r")) == ""
    assert pointer_attrs(KernelParam("ptr", "%p")) == ""


def test_split_params_respects_parentheses():
    params = split_params("ptr noalias dereferenceable(8) %a, { i32, i64 } %b, double %c")
    assert [(p.type, p.rest) for p in params] == [
        ("ptr", "noalias dereferenceable(8) %a"), ("{ i32, i64 }", "%b"), ("double", "%c")]


def test_cli_reports_missing_kernels(tmp_path, capsys):
    src = tmp_path / "in.ll"
    src.write_text("define void @f() {\n  ret void\n}\n")
    assert main([str(src), str(tmp_path / "out.ll")]) == 3
    assert "no function with the \"offload-kernel\" attribute" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.ll"), str(tmp_path / "o.ll")]) == 2


DEBUG_IR = """\
define dso_local ptx_kernel void @k(ptr noalias %x) unnamed_addr #1 !dbg !7 {
start:
  ret void, !dbg !9
}

attributes #1 = { nounwind "offload-kernel" }

!llvm.module.flags = !{!0, !1}
!llvm.dbg.cu = !{!5}
!0 = !{i32 7, !"Dwarf Version", i32 4}
!1 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DICompileUnit(language: DW_LANG_Rust, file: !6, emissionKind: LineTablesOnly)
!6 = !DIFile(filename: "src/main.rs", directory: "/crate")
!7 = distinct !DISubprogram(name: "k", scope: !6, file: !6, line: 95, type: !8, \
scopeLine: 95, spFlags: DISPFlagDefinition, unit: !5)
!8 = !DISubroutineType(types: !{})
!9 = !DILocation(line: 96, column: 5, scope: !7)
"""


def test_wrapper_gets_its_own_subprogram_when_the_device_pass_had_line_tables():
    """Without a subprogram on the wrapper llc writes no .loc for the kernel at all, and the IR
    verifier rejects a call without a location inside a function that has one."""
    out, names = fix_kernel_abi(DEBUG_IR)
    assert names == ["k"]
    assert "define internal void @k.offload_inner(ptr noalias %x) unnamed_addr alwaysinline #1 !dbg !7 {" in out
    assert "define dso_local ptx_kernel void @k(ptr %dyn_ptr, ptr noalias %arg0) #1 !dbg !10 {" in out
    assert "  call void @k.offload_inner(ptr %arg0), !dbg !11" in out
    assert out.rstrip().endswith(
        "!10 = distinct !DISubprogram(name: \"k\", scope: !6, file: !6, line: 95, type: !8, scopeLine: 95, "
        "spFlags: DISPFlagDefinition, unit: !5)\n!11 = !DILocation(line: 95, column: 1, scope: !10)")
    # Without debug info nothing of the kind is added.
    assert "!dbg" not in fix_kernel_abi(IR)[0]


@pytest.mark.toolchain
def test_debug_wrapper_passes_the_llvm_verifier(tmp_path, offload_report):
    llvm_as = str(Path(offload_report.llvm.tools["llvm-dis"]).with_name("llvm-as"))
    src = tmp_path / "k.ll"
    src.write_text(fix_kernel_abi(DEBUG_IR)[0])
    done = subprocess.run([llvm_as, str(src), "-o", str(tmp_path / "k.bc")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
