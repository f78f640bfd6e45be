"""Device listings and their source maps, on files this project's pipeline wrote:
``offload_kernels_sm90_lines.ptx`` / ``.opt.ll`` are ``offload-ls asm examples/offload-kernels``
output (Debian rustc 1.96 + LLVM 22, sm_90, line tables), recorded when the example's
``saxpy_at`` body ``y[i] = a * x[i] + y[i];`` stood on line 59, the kernel ``saxpy`` on line 95
and its call ``saxpy_at(i, *a, x, y)`` on line 98."""

from __future__ import annotations

from pathlib import Path

from offload_ls.gpu.listing import parse_asm, parse_llvm_ir, parse_sass

DATA = Path(__file__).parent / "data"
MAIN = "/work/main/examples/offload-kernels/src/main.rs"  # as the compiler recorded it
KERNELS = {"daxpy", "fir", "hash_u32", "saxpy", "triad"}


def _ptx():
    return parse_asm((DATA / "offload_kernels_sm90_lines.ptx").read_text(), "ptx",
                     "/work/main/examples/offload-kernels")


def test_ptx_functions_are_the_kernel_entries():
    listing = _ptx()
    assert set(listing.functions) == KERNELS
    first, last = listing.functions["saxpy"]
    assert listing.lines[first].startswith(".visible .entry saxpy(") and listing.lines[last] == "}"


def test_ptx_arithmetic_maps_to_the_statement_that_wrote_it():
    listing = _ptx()
    first, last = listing.functions["saxpy"]
    body = range(first, last + 1)
    fp = [i for i in body if listing.lines[i].strip().startswith(("mul.rn.f32", "add.rn.f32", "fma.rn.f32"))]
    assert fp and {listing.source_line(i, MAIN) for i in fp} == {59}
    # The statement's lines, asked the other way round, are all inside the kernels that inline it.
    lines = listing.listing_lines(MAIN, 59)
    assert set(fp) <= set(lines)
    assert all(any(a <= i <= b for a, b in listing.functions.values()) for i in lines)


def test_ptx_library_code_maps_to_the_kernel_line_that_called_it():
    """``%ctaid.x`` comes from core::arch::nvptx (file 2 of the .file table, which llc writes
    at the end of the module); its inlined-at chain leads to the kernel's index line 96."""
    listing = _ptx()
    first, last = listing.functions["saxpy"]
    ctaid = next(i for i in range(first, last + 1) if "%ctaid.x" in listing.lines[i])
    assert listing.locs[ctaid][0].path.endswith("core_arch/src/nvptx/mod.rs")
    assert listing.source_line(ctaid, MAIN) == 96
    # Directives, labels and comments belong to no source line.
    assert listing.source_line(first, MAIN) is None
    assert all(listing.source_line(i, MAIN) is None for i in range(first, last + 1)
               if listing.lines[i].strip().startswith((".loc", "$L", "//")))


def test_llvm_ir_locations_follow_scopes_and_inlined_at():
    listing = parse_llvm_ir((DATA / "offload_kernels_sm90_lines.opt.ll").read_text())
    assert KERNELS <= set(listing.functions)
    first, last = listing.functions["saxpy"]
    body = [i for i in range(first, last + 1)]
    fmul = next(i for i in body if " fmul float " in listing.lines[i])
    assert listing.source_line(fmul, MAIN) == 59
    assert [loc.line for loc in listing.locs[fmul]] == [59, 98, 95]  # saxpy_at <- saxpy <- wrapper
    ctaid = next(i for i in body if "sreg.ctaid.x" in listing.lines[i])
    assert listing.source_line(ctaid, MAIN) == 96


def test_sass_from_the_h200_maps_instructions_to_source_lines():
    """``nvdisasm --print-line-info`` of ``ptxas -lineinfo`` on the same PTX (without its DWARF,
    :func:`ptx_for_ptxas`), recorded on the H200 (benchmarks/gpu_record/record.sh): optimised
    SASS, FMUL and FADD of saxpy_at's statement on line 59."""
    listing = parse_sass((DATA / "h200_offload_kernels_lines.sass").read_text())
    assert KERNELS <= set(listing.functions)
    first, last = listing.functions["saxpy"]
    body = range(first, last + 1)
    fp = [i for i in body if " FMUL " in listing.lines[i] or " FADD " in listing.lines[i]]
    assert len(fp) == 2 and {listing.source_line(i, MAIN) for i in fp} == {59}
    exit_ = next(i for i in body if "@P0 EXIT" in listing.lines[i])
    assert listing.source_line(exit_, MAIN) == 97  # the bounds guard `if i < N`
    assert not any("MOV R6, R6" in listing.lines[i] for i in body)  # optimised, not -g
    assert listing.source_line(first, MAIN) is None  # the label line


def test_ptx_for_ptxas_keeps_line_tables_and_drops_dwarf():
    from offload_ls.gpu.listing import ptx_for_ptxas

    text = (DATA / "offload_kernels_sm90_lines.ptx").read_text()
    out = ptx_for_ptxas(text)
    assert ".target sm_90, debug" in text and ".target sm_90\n" in out
    assert ".debug_info" in text and ".debug_" not in out
    assert out.count("\t.loc\t") == text.count("\t.loc\t") > 100
    assert out.count("\t.file\t") == text.count("\t.file\t") == 4


def test_bad_input_gives_an_empty_map_not_an_error():
    for text in ["", "\x00\xff garbage {", ".loc 9 1 1\n\tmov.u32 %r1, %r2;\n}", ".file 1\n"]:
        listing = parse_asm(text)
        assert listing.line_map("/x.rs") == [] and listing.source_line(99, "/x.rs") is None
        assert parse_llvm_ir(text).line_map("/x.rs") == []


def test_non_ascii_crate_paths_as_llc_and_llvm_dis_quote_them():
    """llc writes a path's non-ASCII bytes as octal escapes in `.file` (`\\303\\274` for ü),
    llvm-dis as hex escapes in `DIFile` (`\\C3\\BC`): both decode back to the crate's path."""
    where = "/tmp/my dir/ünï"
    octal = "".join(ch if ord(ch) < 128 else "".join(f"\\{b:03o}" for b in ch.encode()) for ch in where)
    hexed = "".join(ch if ord(ch) < 128 else "".join(f"\\{b:02X}" for b in ch.encode()) for ch in where)
    ptx = (DATA / "offload_kernels_sm90_lines.ptx").read_text()
    ascii_map = _ptx().line_map(MAIN)
    moved = parse_asm(ptx.replace("/work/main/examples/offload-kernels", octal), "ptx", where)
    assert "\\303\\274" in octal and moved.line_map(f"{where}/src/main.rs") == ascii_map
    ir = (DATA / "offload_kernels_sm90_lines.opt.ll").read_text()
    ir_map = parse_llvm_ir(ir).line_map(MAIN)
    assert parse_llvm_ir(ir.replace("/work/main/examples/offload-kernels", hexed)).line_map(
        f"{where}/src/main.rs") == ir_map and ir_map
