"""CompileService: debounce, a newer request cancels the running compile, generations."""

import asyncio
import json
import sys
import time
from pathlib import Path

from offload_ls.toolchain.crate import Crate
from offload_ls.toolchain.plan import Pass, Plan


def _message(text: str) -> str:
    return json.dumps({"reason": "compiler-message", "message": {
        "level": "error", "message": text, "spans": [], "children": [], "code": None}})


def _plan(tmp_path: Path, sleep_s: float, text: str) -> Plan:
    crate = Crate(tmp_path / "Cargo.toml", "demo", tmp_path, tmp_path / "target", "demo", False)
    code = f"import time; time.sleep({sleep_s}); print({_message(text)!r})"
    return Plan(crate, "llvm-tools", [Pass("host", "host", (sys.executable, "-c", code), {}, tmp_path, 30.0)])


def test_newer_request_cancels_the_running_compile_and_only_its_result_is_delivered(tmp_path):
    from offload_ls.toolchain.service import CompileService

    delivered = []
    progress = []
    texts = iter(["first (slow)", "second"])
    sleeps = iter([5.0, 0.1])

    def make_plan(manifest):
        return _plan(tmp_path, next(sleeps), next(texts))

    async def scenario():
        svc = CompileService(make_plan,
                             on_result=lambda m, g, r: delivered.append((g, [d.message for d in r.diagnostics])),
                             on_error=lambda m, msg: delivered.append(("error", msg)),
                             on_progress=lambda m, e, msg, pct: progress.append((e, msg)), debounce_s=0.05)
        manifest = tmp_path / "Cargo.toml"
        svc.request(manifest)
        await asyncio.sleep(1.0)  # the slow run is running now
        assert svc.running(manifest)
        second = svc.request(manifest)
        result = await asyncio.wait_for(second, 20)
        await svc.shutdown()
        return result

    result = asyncio.run(scenario())
    assert delivered == [(2, ["second"])]
    assert [d.message for d in result.diagnostics] == ["second"]
    assert [e for e, _ in progress] == ["begin", "report", "end", "begin", "report", "end"]
    assert progress[2] == ("end", "cancelled")


def test_requests_within_the_debounce_window_run_once(tmp_path):
    from offload_ls.toolchain.service import CompileService

    plans = []

    def make_plan(manifest):
        plans.append(manifest)
        return _plan(tmp_path, 0.0, f"run {len(plans)}")

    delivered = []

    async def scenario():
        svc = CompileService(make_plan, on_result=lambda m, g, r: delivered.append(g),
                             on_error=lambda m, msg: None, debounce_s=0.3)
        manifest = tmp_path / "Cargo.toml"
        futs = [svc.request(manifest) for _ in range(5)]
        await asyncio.wait_for(futs[-1], 20)
        await svc.shutdown()

    asyncio.run(scenario())
    assert len(plans) == 1
    assert delivered == [5]


def test_plan_errors_are_reported(tmp_path):
    from offload_ls.toolchain.service import CompileService

    errors = []

    def make_plan(manifest):
        raise RuntimeError("Cargo.toml: cargo metadata failed: expected `]`")

    async def scenario():
        svc = CompileService(make_plan, on_result=lambda m, g, r: None,
                             on_error=lambda m, msg: errors.append(msg), debounce_s=0.0)
        svc.request(tmp_path / "Cargo.toml")
        for _ in range(100):
            if errors:
                break
            await asyncio.sleep(0.05)
        await svc.shutdown()

    asyncio.run(scenario())
    assert errors == ["Cargo.toml: cargo metadata failed: expected `]`"]


def test_checks_are_delivered_before_the_transfer_plan_pass(tmp_path):
    from offload_ls.toolchain.service import CompileService

    crate = Crate(tmp_path / "Cargo.toml", "demo", tmp_path, tmp_path / "target", "demo", False)
    warning = _message("checked").replace('"level": "error"', '"level": "warning"')
    check = Pass("host", "host", (sys.executable, "-c", f"print({warning!r})"), {}, tmp_path, 30.0)
    slow = Pass("host-ir", "host", (sys.executable, "-c", "import time; time.sleep(1.5)"), {}, tmp_path, 30.0,
                needs_clean=True)
    delivered = []

    async def scenario():
        svc = CompileService(lambda m: Plan(crate, "llvm-tools", [check, slow]),
                             on_result=lambda m, g, r: delivered.append((time.monotonic(), [p.name for p in r.passes])),
                             on_error=lambda m, msg: None, debounce_s=0.0)
        start = time.monotonic()
        await asyncio.wait_for(svc.request(tmp_path / "Cargo.toml"), 20)
        await svc.shutdown()
        return start

    start = asyncio.run(scenario())
    assert [names for _, names in delivered] == [["host"], ["host", "host-ir"]]
    assert delivered[0][0] - start < 1.0 <= delivered[1][0] - start  # the first did not wait for the slow pass


def test_a_lowered_plan_keeps_its_lowering_through_the_service(tmp_path):
    """The service runs a plan in two stages; both keep the plan's lowering, so check on
    save refuses a failed lowering and shows its problems as the CLI's one run does
    (toolchain/compile.py ``run_plan``), instead of compiling the generated copy."""
    from offload_ls.toolchain.compile import run_plan
    from offload_ls.toolchain.lower import Lowering
    from offload_ls.toolchain.lower_checks import LoweringIssue
    from offload_ls.toolchain.service import CompileService

    src = tmp_path / "src" / "lib.rs"
    src.parent.mkdir()
    src.write_text("fn k() {}\n")
    issue = LoweringIssue(file=src, start=0, end=2, level="error", message="cannot lower this launch")
    lowering = Lowering(manifest=tmp_path / "lowered" / "Cargo.toml", root=tmp_path / "lowered",
                        original_root=tmp_path, issues=[issue])
    plan = _plan(tmp_path, 0.0, "from the generated copy")
    plan.lowering = lowering

    cli = asyncio.run(run_plan(plan))
    delivered = []

    async def scenario():
        svc = CompileService(lambda m: plan, on_result=lambda m, g, r: delivered.append(r),
                             on_error=lambda m, msg: delivered.append(msg), debounce_s=0)
        await svc.request(tmp_path / "Cargo.toml")
        for _ in range(200):
            if delivered:
                break
            await asyncio.sleep(0.02)

    asyncio.run(scenario())
    assert [(d.level, d.message) for d in cli.diagnostics] == [("error", "cannot lower this launch")]
    assert [[(d.level, d.message) for d in r.diagnostics] for r in delivered] == [
        [("error", "cannot lower this launch")]]
