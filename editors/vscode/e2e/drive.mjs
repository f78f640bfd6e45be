// Drives a real VS Code (code-server, already started) in headless Chromium through the
// offload-ls extension, step by step, and prints one JSON line per step:
//   {"step": name, "ok": bool, "detail": string, "seconds": float}
// A failed step stops the run and saves `<outDir>/<step>.png`.
//
// usage: OFFLOAD_LS_E2E_SERVER=PATTERN node drive.mjs URL OUT_DIR SETTINGS_JSON_PATH
//        OFFLOAD_LS_E2E_MODE=gpu node drive.mjs URL OUT_DIR  (the workspace is examples/offload-kernels:
//        the "Run on GPU" lens on the Virtual Host Device, "Show PTX" and the line map both ways;
//        OFFLOAD_LS_E2E_LINE is the 1-based source line whose PTX lines are checked)
//   URL: the workbench with the workspace folder (…/?folder=/abs/ws); the workspace holds
//        src/main.rs with the kernel `scale(x: *mut [f32; 4])` (one raw_pointer_kernel_param).
//   PATTERN: a string of the server's command line (to kill it: the recovery check); in the
//        environment, so that it is not in this process's own command line.
//   SETTINGS_JSON_PATH: the workspace's .vscode/settings.json (VS Code watches it).
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";

import { chromium } from "playwright-core";

const [url, outDir, settingsPath] = process.argv.slice(2);
const mode = process.env.OFFLOAD_LS_E2E_MODE ?? "lint";
const serverPattern = process.env.OFFLOAD_LS_E2E_SERVER ?? "offload-ls serve";
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const RULE = "raw_pointer_kernel_param";

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const t0 = Date.now();

function report(step, ok, detail) {
  // editors render spaces as no-break spaces
  detail = String(detail).replace(/\u00a0/g, " ");
  console.log(JSON.stringify({ step, ok, detail, seconds: (Date.now() - t0) / 1000 }));
}

async function step(name, fn) {
  try {
    const detail = await fn();
    report(name, true, detail ?? "");
  } catch (error) {
    report(name, false, String(error?.message ?? error).split("\n")[0]);
    await page.screenshot({ path: `${outDir}/${name}.png` }).catch(() => {});
    await browser.close();
    process.exit(1);
  }
}

function run(program, args) {
  return new Promise((resolve) => execFile(program, args, { timeout: 10_000 }, (e, out) => resolve(e ? "" : out)));
}

/** pids of the server processes (never this one). */
async function serverPids() {
  const out = await run("pgrep", ["-f", serverPattern]);
  return out.trim().split(/\s+/).filter((p) => p && Number(p) !== process.pid);
}

const problems = () => page.locator(".markers-panel .monaco-list-row", { hasText: RULE });
const squiggles = () => page.locator(".monaco-editor .squiggly-warning");

await step("workbench", async () => {
  await page.goto(url);
  await page.waitForSelector(".monaco-workbench", { timeout: 120_000 });
});

await step("open_file", async () => {
  // Quick Open; the workbench may still take the focus while it restores its layout: retry
  const opened = page.locator(".monaco-editor .view-line", { hasText: "gpu-kernel" }).first();
  for (let attempt = 1; ; attempt++) {
    await page.waitForTimeout(1500);
    await page.keyboard.press("Control+P");
    try {
      await page.waitForSelector(".quick-input-widget input", { timeout: 10_000 });
      await page.keyboard.type("main.rs");
      await page.locator(".quick-input-list .monaco-list-row", { hasText: "main.rs" }).first().waitFor({ timeout: 15_000 });
      await page.keyboard.press("Enter");
      await opened.waitFor({ timeout: 15_000 });
      return `attempt ${attempt}`;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
      await page.keyboard.press("Escape");
    }
  }
});

/** Click the code lens titled `lensText` nearest above the editor line containing `lineText`. */
async function clickLensAbove(lineText, lensText) {
  const line = page.locator(".monaco-editor .view-line", { hasText: lineText }).first();
  await line.waitFor({ timeout: 30_000 });
  const lenses = page.locator(".monaco-editor .codelens-decoration a", { hasText: lensText });
  await lenses.first().waitFor({ timeout: 60_000 });
  const lineBox = await line.boundingBox();
  let best;
  let bestY = -Infinity;
  for (const lens of await lenses.all()) {
    const box = await lens.boundingBox();
    if (box && box.y < lineBox.y && box.y > bestY) {
      best = lens;
      bestY = box.y;
    }
  }
  if (best === undefined) {
    throw new Error(`no "${lensText}" lens above "${lineText}"`);
  }
  await best.click();
}

/** Go to a 1-based line of the active editor with Ctrl+G. */
async function goToLine(line) {
  await page.keyboard.press("Control+G");
  await page.waitForSelector(".quick-input-widget input", { timeout: 10_000 });
  await page.keyboard.type(String(line));
  await page.keyboard.press("Enter");
  await page.waitForTimeout(500);
}

if (mode === "gpu") {
  const line = Number(process.env.OFFLOAD_LS_E2E_LINE);
  await step("run_lens", async () => {
    await goToLine(Number(process.env.OFFLOAD_LS_E2E_MAIN_LINE));
    await clickLensAbove("fn main()", "Run on GPU");
    // the run report ends the "offload-ls run" output channel (a cold build takes minutes here)
    const report = page.locator(".part.panel .view-line", { hasText: "run report: exit status" }).first();
    await report.waitFor({ timeout: 480_000 });
    return (await report.innerText()).trim();
  });
  await step("show_ptx", async () => {
    await page.locator(".monaco-editor .view-line", { hasText: "fn main()" }).first().click();
    await goToLine(Number(process.env.OFFLOAD_LS_E2E_KERNEL_LINE));
    await clickLensAbove('extern "gpu-kernel" fn saxpy(', "Show PTX");
    const tab = page.locator(".tab", { hasText: "main.rs.saxpy.ptx" }).first();
    await tab.waitFor({ timeout: 300_000 });
    const entry = page.locator(".monaco-editor .view-line", { hasText: ".visible .entry saxpy(" }).first();
    await entry.waitFor({ timeout: 30_000 });
    return (await tab.innerText()).trim();
  });
  await step("source_to_ptx", async () => {
    // the source editor keeps the focus: its cursor line selects the PTX lines
    await goToLine(line);
    const status = page.locator(".statusbar-item", { hasText: /ptx \d/ }).first();
    await status.waitFor({ timeout: 30_000 });
    return (await status.innerText()).trim();
  });
  await step("ptx_to_source", async () => {
    const fp = page.locator(".monaco-editor .view-line", { hasText: /(mul|add|fma)\.rn\.f32/ }).first();
    await fp.waitFor({ timeout: 30_000 });
    await fp.click();
    const status = page.locator(".statusbar-item", { hasText: /main\.rs:\d+/ }).first();
    await status.waitFor({ timeout: 30_000 });
    return (await status.innerText()).trim();
  });
  await page.screenshot({ path: `${outDir}/done.png` });
  await browser.close();
  process.exit(0);
}

await step("status_bar", async () => {
  const item = page.locator(".statusbar-item", { hasText: /offload: .*·/ }).first();
  await item.waitFor({ timeout: 90_000 });
  return (await item.innerText()).trim();
});

await step("diagnostic", async () => {
  await squiggles().first().waitFor({ timeout: 60_000 });
  await page.keyboard.press("Control+Shift+M");
  const row = problems().first();
  await row.waitFor({ timeout: 30_000 });
  return (await row.innerText()).replace(/\s*\n\s*/g, " | ");
});

await step("hover", async () => {
  await page.locator(".monaco-editor .view-line span", { hasText: /^scale$/ }).first().hover();
  const hover = page.locator(".monaco-hover .hover-contents", { hasText: "scale" }).first();
  await hover.waitFor({ timeout: 30_000 });
  const text = (await hover.innerText()).replace(/\s*\n\s*/g, " | ");
  await page.mouse.move(5, 450);
  await hover.waitFor({ state: "hidden", timeout: 10_000 });
  return text;
});

await step("settings_change", async () => {
  // the rule off in the workspace settings: the finding goes; back to the default: it returns
  writeFileSync(settingsPath, JSON.stringify({ "offload-ls.rules": { [RULE]: "allow" } }));
  await problems().first().waitFor({ state: "detached", timeout: 60_000 });
  writeFileSync(settingsPath, JSON.stringify({}));
  await problems().first().waitFor({ timeout: 60_000 });
  return "allow removed the finding; the default brought it back";
});

await step("quick_fix", async () => {
  const star = page.locator(".monaco-editor .view-line span", { hasText: /^\*$/ }).first();
  await star.click();
  await page.keyboard.press("Control+.");
  const action = page.locator(".action-widget .monaco-list-row, .context-view .action-item", { hasText: "&mut [f32; 4]" }).first();
  await action.waitFor({ timeout: 30_000 });
  const title = (await action.innerText()).trim();
  await page.keyboard.press("Enter"); // the first (focused) quick fix
  await page.locator(".monaco-editor .view-line", { hasText: "x: &mut [f32; 4]" }).first().waitFor({ timeout: 30_000 });
  await problems().first().waitFor({ state: "detached", timeout: 60_000 });
  return title;
});

await step("server_restart", async () => {
  const pids = await serverPids();
  if (pids.length === 0) {
    throw new Error(`no server process matching ${serverPattern}`);
  }
  await run("kill", ["-9", ...pids]);
  // the client starts a new server; an edit that brings the raw pointer back is reported again
  await page.waitForTimeout(3000);
  const after = await serverPids();
  if (after.length === 0 || after.some((p) => pids.includes(p))) {
    throw new Error(`no new server process after killing ${pids.join(" ")}`);
  }
  await page.keyboard.press("Control+Z");
  await page.locator(".monaco-editor .view-line", { hasText: "x: *mut [f32; 4]" }).first().waitFor({ timeout: 30_000 });
  await problems().first().waitFor({ timeout: 60_000 });
  return `killed ${pids.join(" ")}, new server ${after.join(" ")}`;
});

await page.screenshot({ path: `${outDir}/done.png` });
await browser.close();
