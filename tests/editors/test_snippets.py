"""The Helix, Emacs and pre-commit snippets, and the YAML in docs/editors.md.

- editors/helix/languages.toml: structure (tomllib), then the server started with its
  command, args and config and answered as Helix answers (``config`` as
  initializationOptions and, for ``workspace/configuration``, the section looked up in it).
- editors/emacs/offload-ls.el: balanced parentheses and the Eglot entry (always); with
  Emacs and Eglot installed (``apt-get install emacs-nox elpa-eglot``), byte-compiled with
  warnings as errors, and driven end to end through Eglot (tests/editors/emacs/e2e.el).
- .pre-commit-hooks.yaml: structure, and its entry run the way pre-commit runs it
  (``entry + args + file names``).
- docs/editors.md: its YAML blocks parse, and the CI job runs the documented command.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.syntax.text import LineIndex

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "fixtures" / "kernel-crate"
HELIX = ROOT / "editors" / "helix" / "languages.toml"
EMACS_EL = ROOT / "editors" / "emacs" / "offload-ls.el"
HOOKS = ROOT / ".pre-commit-hooks.yaml"
DOCS = ROOT / "docs" / "editors.md"
#: seconds for one server session / one Emacs session
SESSION_TIMEOUT_S = 60


def bin_env() -> dict:
    """The environment with this interpreter's scripts (``offload-ls``) first on PATH."""
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


def resolve_program(argv: list[str]) -> list[str]:
    """``argv`` with ``offload-ls`` replaced by ``python -m offload_ls`` when the console
    script is not beside this interpreter."""
    if argv[0] == "offload-ls" and shutil.which("offload-ls", path=bin_env()["PATH"]) is None:
        return [sys.executable, "-m", "offload_ls", *argv[1:]]
    return argv


# ---------------------------------------------------------------------------- Helix

def helix_config() -> dict:
    return tomllib.loads(HELIX.read_text())


def test_helix_languages_toml_runs_offload_ls_beside_rust_analyzer():
    cfg = helix_config()
    server = cfg["language-server"]["offload-ls"]
    assert (server["command"], server["args"]) == ("offload-ls", ["serve"])
    assert server["config"] == {"offload-ls": {"trustedWorkspaces": [], "checkOnSave": True, "transferPlan": True,
                                               "scanWorkspace": True, "rules": {}}}
    (rust,) = [lang for lang in cfg["language"] if lang["name"] == "rust"]
    assert rust == {"name": "rust", "language-servers": ["rust-analyzer", "offload-ls"]}
    # Only the offload-ls server is defined here; rust-analyzer is Helix's own definition.
    assert list(cfg["language-server"]) == ["offload-ls"]


class StdioClient:
    """A minimal LSP client over a server's stdin/stdout that answers server requests the
    way Helix does (configuration from ``config``, null for registrations/progress)."""

    def __init__(self, argv: list[str], config: dict, cwd: Path) -> None:
        self.config = config
        self.proc = subprocess.Popen(argv, cwd=cwd, env=bin_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.inbox: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _answer(self, msg: dict) -> None:
        if msg["method"] == "workspace/configuration":
            result = []
            for item in msg["params"]["items"]:
                value = self.config  # Helix: walk the dotted section through `config`
                for part in (item.get("section") or "").split("."):
                    if part:
                        value = value.get(part) if isinstance(value, dict) else None
                result.append(value)
            self.send({"id": msg["id"], "result": result})
        else:
            self.send({"id": msg["id"], "result": None})

    def wait(self, pred, timeout: float = 30) -> dict:
        """Handle incoming messages until one satisfies ``pred``; return it."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"timed out; notifications so far: {self.notifications}"
            msg = self.inbox.get(timeout=left)
            assert msg is not None, "the server closed its output: " + self.proc.stderr.read().decode()[-2000:]
            if "method" in msg and "id" in msg:
                self._answer(msg)
            elif "method" in msg:
                self.notifications.append(msg)
            if pred(msg):
                return msg

    def request(self, method: str, params) -> dict:
        self.next_id += 1
        rid = self.next_id
        self.send({"id": rid, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == rid and "method" not in m)

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.send({"method": "exit"})
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def helix_session(tmp_path: Path, config: dict) -> tuple[StdioClient, dict, bytes]:
    """Start the server as Helix would with ``config``, open the fixture, return the
    client, the first publishDiagnostics of the file, and its bytes."""
    server = helix_config()["language-server"]["offload-ls"]
    crate = tmp_path / "kernel-crate"
    shutil.copytree(FIXTURE, crate)
    main_rs = crate / "src" / "main.rs"
    client = StdioClient(resolve_program([server["command"], *server["args"]]), config, crate)
    try:
        client.request("initialize", {
            "processId": os.getpid(), "rootUri": crate.as_uri(), "initializationOptions": config,
            "workspaceFolders": [{"uri": crate.as_uri(), "name": crate.name}],
            "capabilities": {"workspace": {"configuration": True, "workspaceFolders": True},
                             "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]}},
        })
        client.send({"method": "initialized", "params": {}})
        source = main_rs.read_bytes()
        client.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": main_rs.as_uri(), "languageId": "rust", "version": 1, "text": source.decode()}}})
        published = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == main_rs.as_uri() and m["params"].get("version") == 1)
    except BaseException:
        client.proc.kill()
        client.proc.wait()
        raise
    return client, published["params"], source


def settings_problems(client: StdioClient) -> list[str]:
    return [n["params"]["message"] for n in client.notifications
            if n["method"] == "window/logMessage" and n["params"]["message"].startswith("settings:")]


def test_helix_config_reaches_the_server(tmp_path):
    """The snippet's config, with one rule level set, as initializationOptions and as the
    workspace/configuration answer: accepted without a settings problem, and applied."""
    config = helix_config()["language-server"]["offload-ls"]["config"]
    config["offload-ls"]["rules"]["unsafe_in_kernel"] = "deny"
    client, published, source = helix_session(tmp_path, config)
    try:
        # Helix offers utf-8 first; offload-ls prefers it.
        index = LineIndex(source)
        got = [(d["code"], d["severity"], (d["range"]["start"]["line"], d["range"]["start"]["character"]))
               for d in published["diagnostics"]]
        want = [(f.rule, 1 if f.level is Level.DENY else 2, index.position(f.span.start, "utf-8"))
                for f in analyze_source(source, {"unsafe_in_kernel": Level.DENY}).findings]
        assert got == want
        assert got == [("raw_pointer_kernel_param", 2, (22, 59)), ("unsafe_in_kernel", 1, (25, 12))]
    finally:
        client.close()  # reads everything the server sent before its shutdown reply
    assert settings_problems(client) == []


def test_helix_session_reports_a_bad_config_value(tmp_path):
    """Control for the test above: a wrongly typed value (`rules = []`, what an empty Lua
    table becomes in JSON) is reported, so "no problems" there means the snippet's values
    were accepted."""
    config = {"offload-ls": {"trustedWorkspaces": [], "rules": []}}
    client, _, _ = helix_session(tmp_path, config)
    client.close()
    assert set(settings_problems(client)) == {
        "settings: offload-ls.rules must be a table of rule = level, got list"}


# ---------------------------------------------------------------------------- Emacs

def lisp_forms_balanced(text: str) -> tuple[bool, str]:
    """Check parentheses/brackets of Emacs Lisp ``text``, skipping strings, comments and
    character literals (``?(``, ``?\\(``). Returns (ok, where it went wrong)."""
    stack = []
    i, line = 0, 1
    pairs = {")": "(", "]": "["}
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        elif c == ";":
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
        elif c == "?":
            i += 3 if text[i + 1:i + 2] == "\\" else 2
            continue
        elif c == "\\":
            i += 2
            continue
        elif c in "([":
            stack.append((c, line))
        elif c in ")]":
            if not stack or stack[-1][0] != pairs[c]:
                return False, f"unexpected {c!r} on line {line}"
            stack.pop()
        i += 1
    if stack:
        return False, f"{len(stack)} unclosed, the first opened on line {stack[0][1]}"
    return True, ""


def test_lisp_balance_checker_catches_what_it_should():
    assert lisp_forms_balanced('(a "(" ?\\( ?( ; )\n [b])') == (True, "")
    assert lisp_forms_balanced("(a (b)") == (False, "1 unclosed, the first opened on line 1")
    assert lisp_forms_balanced("(a))") == (False, "unexpected ')' on line 1")


def test_emacs_file_is_balanced_and_adds_the_eglot_entry():
    text = EMACS_EL.read_text()
    assert lisp_forms_balanced(text) == (True, "")
    # The command: the same program and arguments as the Helix snippet.
    assert "(defcustom offload-ls-command '(\"offload-ls\" \"serve\")" in text
    assert "(defcustom offload-ls-major-modes '(rust-mode rust-ts-mode rustic-mode)" in text
    assert "(push (cons offload-ls-major-modes #'offload-ls-eglot-contact) eglot-server-programs)" in text
    assert "(list :initializationOptions (list :offload-ls offload-ls-settings))" in text
    assert text.rstrip().endswith("(provide 'offload-ls)\n;;; offload-ls.el ends here".rstrip())
    server = helix_config()["language-server"]["offload-ls"]
    assert [server["command"], *server["args"]] == ["offload-ls", "serve"]


def emacs_with_eglot() -> str:
    """Path of an Emacs that can load Eglot, or skip."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("needs Emacs: apt-get install emacs-nox elpa-eglot")
    probe = subprocess.run([emacs, "--batch", "--eval", "(require 'eglot)"], capture_output=True, text=True,
                           timeout=SESSION_TIMEOUT_S)
    if probe.returncode != 0:
        pytest.skip("Emacs cannot load Eglot (Emacs 29+ has it; Debian 12: apt-get install elpa-eglot)")
    return emacs


def test_emacs_file_byte_compiles_without_warnings(tmp_path):
    emacs = emacs_with_eglot()
    el = tmp_path / "offload-ls.el"
    shutil.copy(EMACS_EL, el)
    proc = subprocess.run([emacs, "--batch", "--eval", "(setq byte-compile-error-on-warn t)",
                           "-f", "batch-byte-compile", str(el)], capture_output=True, text=True,
                          timeout=SESSION_TIMEOUT_S, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "offload-ls.elc").stat().st_size > 0


def test_emacs_eglot_end_to_end(tmp_path):
    """Eglot starts offload-ls for a Rust buffer through offload-ls.el's entry, Flymake
    shows its diagnostics at the right characters, and the commands answer."""
    emacs = emacs_with_eglot()
    git = shutil.which("git")
    if git is None:
        pytest.skip("needs git (Eglot's project root)")
    crate = tmp_path / "kernel-crate"
    shutil.copytree(FIXTURE, crate)
    subprocess.run([git, "init", "-q", str(crate)], check=True, timeout=30)
    main_rs = crate / "src" / "main.rs"
    out = tmp_path / "emacs-out.json"
    (tmp_path / "home").mkdir()
    env = {**bin_env(), "HOME": str(tmp_path / "home"), "OFFLOAD_LS_EMACS_DIR": str(EMACS_EL.parent),
           "OFFLOAD_LS_EMACS_FILE": str(main_rs), "OFFLOAD_LS_EMACS_OUT": str(out),
           "OFFLOAD_LS_EMACS_CMD": json.dumps(resolve_program(["offload-ls", "serve"]))}
    proc = subprocess.run([emacs, "--batch", "-l", str(HERE / "emacs" / "e2e.el")], env=env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0 and out.exists(), proc.stdout[-2000:] + proc.stderr[-3000:]
    got = json.loads(out.read_text())
    assert "error" not in got, got["error"] + "\n" + proc.stderr[-3000:]

    assert (got["ours_first_before"], got["ours_first_after_setup"]) == (False, True)
    assert got["first_entry_after_setup"] == "((rust-mode rust-ts-mode rustic-mode) . offload-ls-eglot-contact)"
    assert got["managed_modes"] == ["rust-mode", "rust-ts-mode", "rustic-mode"]
    assert got["contact_program"] == resolve_program(["offload-ls", "serve"])
    assert got["initialization_options"] == {"offload-ls": {"trustedWorkspaces": [],
                                                            "rules": {"unsafe_in_kernel": "deny"}}}

    # Eglot 1.9 offers no position encodings (UTF-16); Flymake positions are characters.
    source = main_rs.read_bytes()
    index = LineIndex(source)
    want = [{"text": f"offload-ls [{f.rule}]: {f.message}",
             "type": "eglot-error" if f.level is Level.DENY else "eglot-warning",
             "start": list(index.position(f.span.start, "utf-32")), "end": list(index.position(f.span.end, "utf-32"))}
            for f in analyze_source(source, {"unsafe_in_kernel": Level.DENY}).findings]
    assert got["diagnostics"] == want
    assert [d["start"] for d in got["diagnostics"]] == [[22, 53], [25, 12]]

    refusal = (f"offload-ls: {crate} is not a trusted workspace; building runs its build scripts and running "
               f"runs its code. Add it to offload-ls.trustedWorkspaces to allow this.")
    assert got["offload-ls.showRunReport"] == {"ok": False, "error": "no run yet: use offload-ls.run first"}
    assert got["offload-ls.build"] == {"ok": False, "error": refusal}
    assert got["offload-ls.cancel"] == {"ok": False, "error": "nothing is running for this crate"}
    doctor = got["offload-ls.doctor"]
    assert got["output_buffer"].splitlines()[:4] == [
        "offload-ls.showRunReport: no run yet: use offload-ls.run first",
        f"offload-ls.build: {refusal}",
        "offload-ls.cancel: nothing is running for this crate",
        f"doctor: pipeline {doctor['pipeline']}, target {doctor['target']} ({doctor['arch']})"]
    # offload-ls-toggle: back to Eglot's default for Rust.
    assert (got["use_for_rust_after_toggle"], got["ours_anywhere_after_toggle"]) == (False, False)


# ---------------------------------------------------------------------------- pre-commit

def test_pre_commit_hook_definition():
    hooks = yaml.safe_load(HOOKS.read_text())
    assert hooks == [{
        "id": "offload-ls", "name": "offload-ls",
        "description": "Lint GPU kernels written in Rust (rustc -Zoffload, Rust-CUDA, rust-gpu, CubeCL)",
        "entry": "offload-ls check", "language": "python", "types": ["rust"],
    }]


def run_hook(files: list[Path], args: list[str] = ()) -> subprocess.CompletedProcess:
    """Run the hook's entry as pre-commit does: shlex-split entry, then args, then files."""
    (hook,) = yaml.safe_load(HOOKS.read_text())
    argv = resolve_program(shlex.split(hook["entry"])) + list(args) + [str(f) for f in files]
    return subprocess.run(argv, env=bin_env(), cwd=ROOT, capture_output=True, text=True, timeout=SESSION_TIMEOUT_S)


def test_pre_commit_entry_passes_on_warnings_and_fails_on_deny():
    fixture = FIXTURE / "src" / "main.rs"
    rel = fixture.relative_to(ROOT)
    source = fixture.read_bytes()
    ok = run_hook([rel])
    assert ok.returncode == 0, ok.stderr
    lines = [line for line in ok.stdout.splitlines() if not line.startswith(" ")]
    index = LineIndex(source)
    assert lines[:-1] == [
        f"{rel}:{index.position(f.span.start, 'utf-32')[0] + 1}:{index.position(f.span.start, 'utf-32')[1] + 1}: "
        f"warning[{f.rule}]: {f.message}" for f in analyze_source(source).findings]
    assert lines[-1] == "0 errors, 2 warnings in 1 file"
    # `args: [--deny, unsafe_in_kernel]` in .pre-commit-config.yaml fails the commit.
    denied = run_hook([rel], ["--deny", "unsafe_in_kernel"])
    assert denied.returncode == 1
    assert denied.stdout.splitlines()[-1] == "1 error, 1 warning in 1 file"


# ---------------------------------------------------------------------------- docs

def test_docs_yaml_blocks_parse_and_ci_uploads_the_checked_sarif():
    text = DOCS.read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```yaml\n")[1:]]
    assert len(blocks) == 2, "docs/editors.md: the pre-commit and GitHub Actions blocks"
    pre_commit, workflow = (yaml.safe_load(b) for b in blocks)
    (repo,) = pre_commit["repos"]
    assert repo["hooks"] == [{"id": "offload-ls"}]
    steps = workflow["jobs"]["offload-ls"]["steps"]
    runs = [s["run"] for s in steps if "run" in s]
    assert "offload-ls check --format sarif -o offload-ls.sarif ." in runs
    (upload,) = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert upload["with"]["sarif_file"] == "offload-ls.sarif"
    assert workflow["jobs"]["offload-ls"]["permissions"]["security-events"] == "write"
    # The documented check command is a valid offload-ls command line.
    proc = subprocess.run(resolve_program(["offload-ls", "check", "--help"]), env=bin_env(), capture_output=True,
                          text=True, timeout=SESSION_TIMEOUT_S)
    assert proc.returncode == 0 and "--format {text,json,sarif}" in proc.stdout
