"""Programs' output, however hostile, never breaks a run nor exhausts memory
(toolchain/process.py ``run_async``, which every compile pass and run goes through).

- A line longer than asyncio's 64 KiB ``readline`` limit (a rustc JSON diagnostic about a
  long type easily is) made ``run_async`` raise ``ValueError`` and ended the check.
- Output is kept up to ``MAX_CAPTURE`` bytes per stream, then only counted; the line
  callbacks still see every line.
"""

from __future__ import annotations

import sys

from offload_ls.toolchain import process
from offload_ls.toolchain.process import run_async


async def test_a_line_over_64_kib_is_read_whole():
    script = 'import sys; sys.stdout.write("x" * 200_000 + "\\n" + "tail"); sys.stderr.write("e" * 100_000)'
    done = await run_async([sys.executable, "-c", script], timeout=60)
    assert done.returncode == 0 and done.error is None
    assert done.stdout == "x" * 200_000 + "\n" + "tail"
    assert done.stderr == "e" * 100_000


async def test_output_beyond_the_cap_is_counted_not_kept(monkeypatch):
    monkeypatch.setattr(process, "MAX_CAPTURE", 1_000_000)
    # 3,000 lines of 999 bytes + newline = 3,000,000 bytes; the first 1,000 fit the cap.
    script = 'import sys\nfor i in range(3000): sys.stdout.write(f"{i:03d}".rjust(999, "-") + "\\n")'
    seen = []
    done = await run_async([sys.executable, "-c", script], timeout=60, on_stdout_line=seen.append)
    lines = done.stdout.split("\n")
    assert len(lines) == 1001
    assert lines[999] == "999".rjust(999, "-")
    assert lines[1000] == "[offload-ls: 2000000 more bytes of output were not kept]"
    assert len(seen) == 3000 and seen[-1] == "2999".rjust(999, "-")


async def test_a_line_without_end_is_cut_at_the_cap(monkeypatch):
    monkeypatch.setattr(process, "MAX_CAPTURE", 1_000_000)
    script = 'import sys; sys.stdout.write("y" * 3_500_000)'
    seen = []
    done = await run_async([sys.executable, "-c", script], timeout=60, on_stdout_line=seen.append)
    assert sum(len(s) for s in seen) == 3_500_000
    assert done.stdout.endswith("more bytes of output were not kept]")
    assert len(done.stdout) < 1_100_000
