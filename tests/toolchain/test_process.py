"""Every external program runs as an argv list with a timeout, in its own process group."""

import asyncio
import sys
import time

from offload_ls.toolchain.process import STARTED, CancelToken, run, run_async

PY = sys.executable


def test_arguments_with_shell_metacharacters_reach_the_program_as_single_elements(tmp_path):
    weird = ["a b", "'q'", '"dq"', "$(touch pwned)", "x;y", "|", "*", "\\n"]
    res = run([PY, "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", *weird], timeout=30, cwd=tmp_path)
    assert res.ok
    assert res.stdout.strip() == '["a b", "\'q\'", "\\"dq\\"", "$(touch pwned)", "x;y", "|", "*", "\\\\n"]'
    assert not (tmp_path / "pwned").exists()
    assert STARTED[-1][3:] == tuple(weird)


def test_missing_program_is_reported_not_raised():
    res = run(["/nonexistent/offload-ls-tool", "--version"], timeout=5)
    assert res.returncode is None
    assert res.error == "/nonexistent/offload-ls-tool: No such file or directory"
    assert not res.ok


def test_timeout_kills_the_whole_process_group(tmp_path):
    marker = tmp_path / "grandchild-survived"
    # The child starts a grandchild that would write the marker after 3 s.
    script = (f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', "
              f"\"import time; time.sleep(3); open({str(marker)!r}, 'w').write('x')\"]); time.sleep(60)")
    start = time.monotonic()
    res = run([PY, "-c", script], timeout=1.0)
    assert res.timed_out
    assert time.monotonic() - start < 10
    time.sleep(3.5)
    assert not marker.exists()


def test_async_run_streams_lines_and_can_be_cancelled():
    async def scenario():
        lines = []
        token = CancelToken()
        code = ("import sys, time\nfor i in range(100):\n"
                "    print(i, file=sys.stderr, flush=True)\n    time.sleep(0.05)\n")
        task = asyncio.create_task(run_async([PY, "-c", code], timeout=60, cancel=token, on_stderr_line=lines.append))
        while len(lines) < 3:
            await asyncio.sleep(0.02)
        token.cancel()
        return await task, lines

    res, lines = asyncio.run(scenario())
    assert res.cancelled
    assert not res.ok
    assert lines[:3] == ["0", "1", "2"]
    assert len(lines) < 100


def test_async_timeout():
    res = asyncio.run(run_async([PY, "-c", "import time; time.sleep(30)"], timeout=0.5))
    assert res.timed_out
    assert res.returncode is not None and res.returncode < 0
