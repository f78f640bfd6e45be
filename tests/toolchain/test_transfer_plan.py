"""Reading the host IR's offload globals (recorded from rustc 1.96 -Zoffload=Test)."""

from pathlib import Path

from offload_ls.toolchain.transfer_plan import ArgTransfer, decode_map_type, human_bytes, parse_ir_file, parse_ir_lines

DATA = Path(__file__).parent / "data"


def test_saxpy_globals():
    plan = parse_ir_file(DATA / "saxpy_offload_globals.ll")
    assert sorted(plan) == ["iota", "saxpy"]
    assert plan["saxpy"].args == [ArgTransfer(0, 4194304, 1, 32, 0), ArgTransfer(1, 4194304, 1, 32, 2)]
    assert [a.direction for a in plan["saxpy"].args] == ["to", "tofrom"]
    assert [a.hint for a in plan["saxpy"].args] == ["→ 4 MiB", "⇄ 4 MiB"]
    assert plan["saxpy"].bytes_to_device == 8388608
    assert plan["saxpy"].bytes_from_device == 4194304
    assert [a.direction for a in plan["iota"].args] == ["tofrom"]


def test_scalar_is_literal_and_pointer_to_scalar_maps_one_element():
    lines = [
        "@.offload_sizes.mixed = private unnamed_addr constant [4 x i64] [i64 4096, i64 4096, i64 4, i64 4]",
        "@.offload_maptypes.mixed.begin = private unnamed_addr constant [4 x i64] [i64 1, i64 1, i64 1, i64 768]",
        "@.offload_maptypes.mixed.kernel = private unnamed_addr constant [4 x i64] [i64 32, i64 32, i64 32, i64 32]",
        "@.offload_maptypes.mixed.end = private unnamed_addr constant [4 x i64] [i64 0, i64 2, i64 2, i64 0]",
    ]
    plan = parse_ir_lines(lines)["mixed"]
    assert [a.hint for a in plan.args] == ["→ 4 KiB", "⇄ 4 KiB", "⇄ 4 B", "⚠ an address, not the value"]
    assert plan.bytes_to_device == 4096 + 4096 + 4
    assert plan.bytes_from_device == 4096 + 4
    # with LITERAL at the launch too (what a fixed host pass emits) it is a value
    fixed = parse_ir_lines([line.replace("i64 32]", "i64 288]") for line in lines])["mixed"]
    assert fixed.args[3].kernel == 288 and fixed.args[3].hint == "by value" and not fixed.args[3].literal_lost


def test_decode_map_type_bits():
    assert decode_map_type(0x300) == ["LITERAL", "IMPLICIT"]
    assert decode_map_type(0x21) == ["TO", "TARGET_PARAM"]
    assert decode_map_type(3) == ["TO", "FROM"]
    assert decode_map_type(0) == []


def test_human_bytes():
    assert [human_bytes(n) for n in (0, 4, 1023, 1024, 1536, 4194304, 3 << 30)] == [
        "0 B", "4 B", "1023 B", "1 KiB", "1.5 KiB", "4 MiB", "3 GiB"]
