"""The device-IR kernel ABI rewrite (what rustc's -Zoffload=Device does)."""

from offload_ls.toolchain.kernel_abi import fix_kernel_abi, main, split_params

IR = """\
define dso_local ptx_kernel void @saxpy(ptr noalias noundef readonly align 4 captures(none) dereferenceable(4096) %x, float noundef %a, i32 %n) unnamed_addr #1 {
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
        "define dso_local ptx_kernel void @saxpy(ptr %dyn_ptr, ptr %arg0, i64 %arg1, i64 %arg2) #1 {\n"
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
