/**
 * The offload-ls VS Code extension: starts the language server (serverCommand.ts), maps
 * workspace trust and settings onto the server's settings (settings.ts), registers the
 * palette commands (commands.ts) and keeps the status bar (status.ts). The logic lives in
 * those pure modules; this file is the glue to the `vscode` API and vscode-languageclient 11.
 */
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  ResponseError,
  State,
  type ConfigurationParams,
  type Executable,
  type LanguageClientOptions,
} from "vscode-languageclient/node";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as readline from "node:readline";

import {
  commandArguments,
  fillArguments,
  PALETTE_COMMANDS,
  RESTART_COMMAND,
  resultText,
  SHOW_ASSEMBLY_PALETTE,
  runOutputLine,
  SERVER_COMMANDS,
  targetUri,
} from "./commands";
import { SHOW_ASSEMBLY } from "./assembly";
import { AssemblyView } from "./assemblyView";
import { nodeProbes } from "./probe";
import { resolveServerCommand } from "./serverCommand";
import { answerConfiguration, needsRestart, SECTION, serverSettings } from "./settings";
import {
  doctorStatus,
  failedStatus,
  ProgressTracker,
  STARTING_STATUS,
  stderrLevel,
  UNTRUSTED_STATUS,
  type ProgressValue,
  type StatusView,
} from "./status";

/** The notification the server sends for each line a run prints (lsp/commands.py). */
const RUN_OUTPUT = "offload-ls/runOutput";

class OffloadExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private readonly log: vscode.LogOutputChannel;
  private readonly runChannel: vscode.OutputChannel;
  private readonly status: vscode.StatusBarItem;
  private readonly progress = new ProgressTracker();
  private base: StatusView = STARTING_STATUS;
  private lifecycle: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly assembly: AssemblyView;

  /** @param bundledLauncher the .vsix's `launcher/offload_ls_launch.py` when it carries the
   * server (`bundled/libs`), else `undefined` */
  constructor(private readonly bundledLauncher: string | undefined) {
    this.log = vscode.window.createOutputChannel("offload-ls", { log: true });
    this.runChannel = vscode.window.createOutputChannel("offload-ls run");
    this.status = vscode.window.createStatusBarItem("offload-ls.status", vscode.StatusBarAlignment.Left, 0);
    this.status.name = "offload-ls";
    this.status.command = "offload-ls.vscode.doctor";
    this.assembly = new AssemblyView((command, args) => this.execute(command, args));
    this.disposables.push(this.log, this.runChannel, this.status, this.assembly);
    this.render();
    this.status.show();
  }

  // ------------------------------------------------------------------ settings and trust

  private folderPaths(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  }

  /** The flat settings object for the server (settings.ts), trust included. */
  private flatSettings(): Record<string, unknown> {
    const config = vscode.workspace.getConfiguration(SECTION);
    return serverSettings((key) => config.get(key), vscode.workspace.isTrusted, this.folderPaths());
  }

  /** `workspace/didChangeConfiguration` with the flat settings; the server then pulls
   * `workspace/configuration`, which the middleware answers with the same object. */
  private async sendConfiguration(): Promise<void> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      return;
    }
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: this.flatSettings() },
    });
  }

  // ------------------------------------------------------------------ status bar

  private render(): void {
    const busy = this.progress.text();
    const view = busy !== undefined ? { text: busy, tooltip: "offload-ls is working", warning: false } : this.base;
    this.status.text = busy !== undefined ? `$(sync~spin) ${view.text}` : view.warning ? `$(warning) ${view.text}` : view.text;
    this.status.tooltip = view.tooltip;
    this.status.backgroundColor = view.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  private setBase(view: StatusView): void {
    this.base = view;
    this.render();
  }

  /** Ask the server's doctor (trusted workspaces only: it runs the toolchain's programs). */
  private async refreshDoctor(): Promise<unknown> {
    if (!vscode.workspace.isTrusted) {
      this.setBase(UNTRUSTED_STATUS);
      return undefined;
    }
    this.setBase({ text: "offload: checking toolchain", tooltip: "offload-ls doctor is running", warning: false });
    const report = await this.execute(SERVER_COMMANDS.doctor, []);
    this.setBase(report === undefined ? failedStatus("offload-ls doctor failed; see the offload-ls log") : doctorStatus(report));
    return report;
  }

  // ------------------------------------------------------------------ commands

  private currentUri(): string | undefined {
    return targetUri(vscode.window.activeTextEditor?.document.uri, (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri));
  }

  /** Before a server command runs: a header in the run channel for runs. */
  private beforeCommand(command: string, args: readonly unknown[]): void {
    if (command === SERVER_COMMANDS.run || command === SERVER_COMMANDS.profile) {
      const uri = (args[0] as { uri?: string } | undefined)?.uri ?? "";
      const what = command === SERVER_COMMANDS.run ? "run" : "profile";
      this.runChannel.appendLine(`── offload-ls: ${what} ${uri} (${new Date().toLocaleTimeString()}) ──`);
      this.runChannel.show(true);
    }
  }

  /** After a server command returned: the run report (or refusal) in the run channel. */
  private afterCommand(command: string, result: unknown): void {
    const text = resultText(command, result);
    if (text !== undefined) {
      this.runChannel.appendLine(text);
      this.runChannel.show(true);
    }
  }

  /** Send `workspace/executeCommand`; `undefined` (after an error message) if it failed. */
  private async execute(command: string, args: unknown[]): Promise<unknown> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      void vscode.window.showErrorMessage("offload-ls: the language server is not running.", "Restart Server").then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand(RESTART_COMMAND);
        }
      });
      return undefined;
    }
    this.beforeCommand(command, args);
    try {
      const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
      this.afterCommand(command, result);
      return result;
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.log.error(`${command} failed: ${why}`);
      void vscode.window.showErrorMessage(`offload-ls: ${command} failed: ${why}`);
      return undefined;
    }
  }

  private async paletteCommand(id: string): Promise<unknown> {
    const command = PALETTE_COMMANDS[id]!;
    const args = commandArguments(command, this.currentUri());
    if (args === undefined) {
      void vscode.window.showErrorMessage("offload-ls: open a Rust file of a crate, or a folder, first.");
      return undefined;
    }
    if (command === SERVER_COMMANDS.doctor) {
      const report = await this.refreshDoctorForced();
      if (report !== undefined) {
        this.log.info(`offload-ls doctor:\n${JSON.stringify(report, null, 2)}`);
        this.log.show(true);
      }
      return report;
    }
    const result = await this.execute(command, args);
    if (command === SERVER_COMMANDS.cancel && result && typeof result === "object" && "error" in result) {
      void vscode.window.showInformationMessage(`offload-ls: ${String((result as { error: unknown }).error)}`);
    }
    if (command === SERVER_COMMANDS.showRunReport && result && typeof result === "object" && "error" in result) {
      void vscode.window.showInformationMessage(`offload-ls: ${String((result as { error: unknown }).error)}`);
    }
    return result;
  }

  /** The doctor asked for from the palette: runs even in an untrusted workspace (the user
   * asked), but the status bar keeps saying "lints only" there. */
  private async refreshDoctorForced(): Promise<unknown> {
    if (vscode.workspace.isTrusted) {
      return this.refreshDoctor();
    }
    return this.execute(SERVER_COMMANDS.doctor, []);
  }

  registerCommands(context: vscode.ExtensionContext): void {
    for (const id of Object.keys(PALETTE_COMMANDS)) {
      context.subscriptions.push(vscode.commands.registerCommand(id, () => this.paletteCommand(id)));
    }
    context.subscriptions.push(vscode.commands.registerCommand(RESTART_COMMAND, () => this.restart()));
    context.subscriptions.push(vscode.commands.registerCommand(SHOW_ASSEMBLY_PALETTE, async () => {
      const uri = vscode.window.activeTextEditor?.document.uri;
      if (uri === undefined || uri.scheme !== "file") {
        void vscode.window.showErrorMessage("offload-ls: open a Rust file of a crate first.");
        return undefined;
      }
      const format = await vscode.window.showQuickPick(["ptx", "llvm-ir", "sass", "amdgcn"], {
        placeHolder: "Listing (sass needs the CUDA toolkit's nvdisasm; amdgcn the AMD target)",
      });
      return format === undefined ? undefined : this.assembly.show({ uri: uri.toString(), format });
    }));
  }

  // ------------------------------------------------------------------ lifecycle

  private clientOptions(): LanguageClientOptions {
    return {
      documentSelector: [{ scheme: "file", language: "rust" }],
      outputChannel: this.log,
      initializationOptions: () => this.flatSettings(),
      synchronize: { configurationSection: SECTION },
      stdioOptions: {
        stdout: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (line) => channel.info(line));
        },
        stderr: (input, channel) => {
          readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on("line", (line) => channel[stderrLevel(line)](line));
        },
      },
      middleware: {
        executeCommand: async (command, args, next) => {
          // A code lens (or another extension) ran a server command: fill in the URI if
          // none was given and show run reports like the palette does.
          const filled = fillArguments(command, args, this.currentUri());
          this.beforeCommand(command, filled);
          const result = await next(command, filled);
          this.afterCommand(command, result);
          return result;
        },
        handleWorkDoneProgress: (token, params, next) => {
          this.progress.update(token, params as ProgressValue);
          this.render();
          next(token, params);
        },
        workspace: {
          configuration: async (params: ConfigurationParams, token, next) => {
            const answered = await next(params, token);
            if (answered instanceof ResponseError) {
              return answered;
            }
            return answerConfiguration(
              params.items.map((item) => item.section),
              answered as unknown[],
              this.flatSettings(),
            );
          },
          // languageclient would send VS Code's nested `offload-ls` object; send the flat
          // one with `trustedWorkspaces` instead.
          didChangeConfiguration: async () => this.sendConfiguration(),
        },
      },
    };
  }

  private async startClient(): Promise<void> {
    this.setBase(STARTING_STATUS);
    const config = vscode.workspace.getConfiguration(SECTION);
    const resolution = await resolveServerCommand(
      {
        path: config.get<string | null>("server.path"),
        python: config.get<string | null>("server.python"),
        workspaceFolders: (vscode.workspace.workspaceFolders ?? [])
          .filter((f) => f.uri.scheme === "file")
          .map((f) => f.uri.fsPath),
        selectedPython: await selectedPythonInterpreter(),
        home: os.homedir(),
        bundled: this.bundledLauncher,
      },
      nodeProbes,
    );
    if (!resolution.ok) {
      for (const line of resolution.tried) {
        this.log.error(`server not usable: ${line}`);
      }
      this.setBase(failedStatus(resolution.message));
      void vscode.window.showErrorMessage(resolution.message, "Open Settings", "Show Log").then((choice) => {
        if (choice === "Open Settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "offload-ls.server");
        } else if (choice === "Show Log") {
          this.log.show();
        }
      });
      return;
    }
    this.log.info(`starting the server: ${resolution.description} (${[resolution.command, ...resolution.args].join(" ")})`);
    const server: Executable = { command: resolution.command, args: resolution.args };
    const client = new LanguageClient("offload-ls", "offload-ls", { run: server, debug: server }, this.clientOptions());
    client.onNotification(RUN_OUTPUT, (params: unknown) => {
      const line = runOutputLine(params);
      if (line !== undefined) {
        this.runChannel.appendLine(line);
      }
    });
    // Tell the server which client-side commands exist (rust-analyzer's
    // `experimental.commands` convention): it then offers the "Show PTX" lens.
    client.registerFeature({
      fillClientCapabilities: (capabilities) => {
        const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
        capabilities.experimental = { ...experimental, commands: { commands: [SHOW_ASSEMBLY] } };
      },
      initialize: () => undefined,
      getState: () => ({ kind: "static" }),
      clear: () => undefined,
    });
    this.client = client;
    try {
      await client.start();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.setBase(failedStatus(`the server did not start: ${why}`));
      this.log.error(`the server did not start: ${why}`);
      void vscode.window.showErrorMessage(`offload-ls: the language server did not start (${why}). See the offload-ls log.`);
      return;
    }
    await this.refreshDoctor();
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      if (client.state !== State.Stopped) {
        await client.stop(5000);
      }
    } catch (error) {
      this.log.warn(`stopping the server: ${error instanceof Error ? error.message : String(error)}`);
    }
    await client.dispose().catch(() => undefined);
  }

  /** Start (first activation); serialised with restarts. */
  start(): Promise<void> {
    this.lifecycle = this.lifecycle.then(() => this.startClient());
    return this.lifecycle;
  }

  /** Stop the server and start it again, resolving its command anew. */
  restart(): Promise<void> {
    this.lifecycle = this.lifecycle.then(async () => {
      await this.stopClient();
      this.progress.clear(); // the old server's progresses end with it
      await this.startClient();
    });
    return this.lifecycle;
  }

  watch(context: vscode.ExtensionContext): void {
    context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(async () => {
        this.log.info("workspace trusted: the server may now compile and run the workspace's crates");
        await this.sendConfiguration();
        await this.refreshDoctor();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.sendConfiguration()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (needsRestart((section) => event.affectsConfiguration(section))) {
          this.log.info("offload-ls.server changed: restarting the server");
          void this.restart();
        }
      }),
    );
  }

  async stop(): Promise<void> {
    await this.lifecycle.catch(() => undefined);
    await this.stopClient();
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

let extension: OffloadExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const launcher = path.join(context.extensionPath, "launcher", "offload_ls_launch.py");
  const bundled = fs.existsSync(path.join(context.extensionPath, "bundled", "libs", "offload_ls")) ? launcher : undefined;
  extension = new OffloadExtension(bundled);
  context.subscriptions.push(extension);
  extension.registerCommands(context);
  extension.watch(context);
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}

/** The interpreter the Python extension (ms-python.python) selected for the first
 * workspace folder, or `undefined` (extension absent, inactive or without an answer
 * within two seconds). Uses its `environments.getActiveEnvironmentPath` API. */
async function selectedPythonInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension("ms-python.python");
  if (ext === undefined) {
    return undefined;
  }
  const lookup = (async () => {
    try {
      const api = (ext.isActive ? ext.exports : await ext.activate()) as
        | { environments?: { getActiveEnvironmentPath?: (resource?: vscode.Uri) => { path?: string } } }
        | undefined;
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const found = api?.environments?.getActiveEnvironmentPath?.(folder)?.path;
      return typeof found === "string" && found.length > 0 ? found : undefined;
    } catch {
      return undefined;
    }
  })();
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2000));
  return Promise.race([lookup, timeout]);
}
