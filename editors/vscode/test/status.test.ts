import assert from "node:assert/strict";
import { test } from "node:test";

import { doctorStatus, ProgressTracker, stderrLevel, UNTRUSTED_STATUS } from "../src/status";

// Trimmed from `offload-ls doctor --json` on a machine with Debian's rustc 1.96 and LLVM 22,
// no GPU (the toolchain entries keep only the fields the status bar reads).
const noGpu = {
  toolchains: [
    { rustc: "/root/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu/bin/rustc", release: "1.97.0-nightly" },
    { rustc: "/usr/bin/rustc", release: "1.96.0" },
  ],
  chosen: 1,
  pipeline: "llvm-tools",
  gpus: [],
  target: "nvptx64-nvidia-cuda",
  arch: "sm_90",
  missing: [],
  install: null,
  notes: ["libomptarget sees: Virtual Host Device"],
};

test("llvm-tools without a GPU", () => {
  assert.deepEqual(doctorStatus(noGpu), {
    text: "offload: llvm-tools · no GPU",
    tooltip: [
      "Pipeline: llvm-tools",
      "rustc: /usr/bin/rustc (1.96.0)",
      "Device target: nvptx64-nvidia-cuda sm_90",
      "GPUs: none found",
      "Click for the full doctor report.",
    ].join("\n"),
    warning: false,
  });
});

test("native with GPUs shows the first GPU's architecture", () => {
  const one = { ...noGpu, pipeline: "native", gpus: [{ vendor: "nvidia", name: "NVIDIA H200", arch: "sm_90", source: "nvidia-smi" }] };
  assert.equal(doctorStatus(one).text, "offload: native · sm_90");
  assert.match(doctorStatus(one).tooltip, /^GPUs: NVIDIA H200 \(sm_90\)$/m);
  const two = { ...one, gpus: [...one.gpus, ...one.gpus] };
  assert.equal(doctorStatus(two).text, "offload: native · sm_90 ×2");
  const unknownArch = { ...one, gpus: [{ vendor: "amd", name: "AMD Instinct", arch: null }] };
  assert.equal(doctorStatus(unknownArch).text, "offload: native · AMD Instinct");
});

test("host-only is a warning that says what to install", () => {
  const s = doctorStatus({
    ...noGpu,
    chosen: null,
    pipeline: "host-only",
    missing: ["LLVM 22 clang-linker-wrapper"],
    install: "apt-get install clang-22",
  });
  assert.equal(s.text, "offload: host-only · no GPU");
  assert.equal(s.warning, true);
  assert.deepEqual(s.tooltip.split("\n"), [
    "Pipeline: host-only",
    "Device target: nvptx64-nvidia-cuda sm_90",
    "GPUs: none found",
    "Missing: LLVM 22 clang-linker-wrapper",
    "Install: apt-get install clang-22",
    "Click for the full doctor report.",
  ]);
});

test("no report", () => {
  assert.deepEqual(doctorStatus({ ok: false, error: "x" }), { text: "offload: ?", tooltip: "offload-ls doctor returned no report", warning: true });
  assert.equal(doctorStatus(undefined).text, "offload: ?");
  assert.equal(UNTRUSTED_STATUS.text, "offload: lints only");
});

test("progress: the newest running job is shown, with its pass", () => {
  const p = new ProgressTracker();
  assert.equal(p.text(), undefined);
  p.update("offload-ls/build/abc", { kind: "begin", title: "offload-ls: Build", message: "lint-gallery", percentage: 0 });
  assert.equal(p.text(), "offload: Build — lint-gallery");
  p.update("offload-ls/build/abc", { kind: "report", message: "[2/4] host: host pass" });
  assert.equal(p.text(), "offload: Build — [2/4] host: host pass");
  p.update("offload-ls/check/def", { kind: "begin", title: "offload-ls", message: "device pass" });
  p.update("offload-ls/check/def", { kind: "report", percentage: 50 });
  assert.equal(p.text(), "offload: device pass (50%)");
  assert.equal(p.size, 2);
  p.update("offload-ls/check/def", { kind: "end", message: "done" });
  assert.equal(p.text(), "offload: Build — [2/4] host: host pass");
  p.update("unknown", { kind: "report", message: "ignored" });
  p.update("offload-ls/build/abc", { kind: "end" });
  assert.equal(p.text(), undefined);
  p.update(7, { kind: "begin", title: "offload-ls: Run" });
  assert.equal(p.text(), "offload: Run");
  p.clear();
  assert.equal(p.size, 0);
});

test("stderr lines: Python logging levels and tracebacks", () => {
  assert.equal(stderrLevel("offload-ls WARNING offload_ls.lsp.server: something"), "warn");
  assert.equal(stderrLevel("offload-ls ERROR pygls.protocol: failed"), "error");
  assert.equal(stderrLevel("offload-ls CRITICAL x: y"), "error");
  assert.equal(stderrLevel("offload-ls INFO x: y"), "info");
  assert.equal(stderrLevel("Traceback (most recent call last):"), "error");
  assert.equal(stderrLevel("ValueError: bad"), "error");
  assert.equal(stderrLevel("  File \"x.py\", line 3"), "warn");
});
