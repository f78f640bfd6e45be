/**
 * The kernel assembly view in VS Code: read-only `offload-ls-asm:` documents with a kernel's
 * PTX / LLVM IR / SASS beside the source, and the lines of one side highlighted for the
 * cursor's line on the other (the server's line map; logic in assembly.ts).
 */
import * as vscode from "vscode";

import {
  ASSEMBLY,
  forwardStatus,
  isAssemblyResult,
  LineMap,
  listingPath,
  runs,
  SCHEME,
  SHOW_ASSEMBLY,
  statusText,
  type AssemblyResult,
} from "./assembly";

interface Shown {
  result: AssemblyResult;
  source: vscode.Uri;
  map: LineMap;
}

export interface ShowArgs {
  uri: string;
  kernel?: string;
  format?: string;
}

export class AssemblyView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly shown = new Map<string, Shown>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly highlight = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor("editor.rangeHighlightBackground"),
    overviewRulerColor: new vscode.ThemeColor("editorOverviewRuler.rangeHighlightForeground"),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private readonly status = vscode.window.createStatusBarItem("offload-ls.assembly", vscode.StatusBarAlignment.Left, -1);
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly execute: (command: string, args: unknown[]) => Promise<unknown>) {
    this.status.name = "offload-ls assembly line";
    this.disposables.push(
      this.changed,
      this.highlight,
      this.status,
      vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
      vscode.commands.registerCommand(SHOW_ASSEMBLY, (args: ShowArgs) => this.show(args)),
      vscode.window.onDidChangeTextEditorSelection((e) => this.follow(e.textEditor)),
      vscode.window.onDidChangeActiveTextEditor((e) => (e ? this.follow(e) : this.status.hide())),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === SCHEME) {
          this.shown.delete(doc.uri.toString());
        }
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.shown.get(uri.toString())?.result.text ?? "// offload-ls: this listing is no longer loaded; use Show PTX again\n";
  }

  /** Compile (the server reuses a fresh listing), open the listing beside the source and
   * reveal the kernel. Errors were already shown by the server (window/showMessage). */
  async show(args: ShowArgs): Promise<AssemblyResult | undefined> {
    const result = await this.execute(ASSEMBLY, [args]);
    if (!isAssemblyResult(result)) {
      return undefined;
    }
    const source = vscode.Uri.parse(args.uri);
    const uri = vscode.Uri.from({ scheme: SCHEME, path: listingPath(source.path, result.kernel, result.format), query: source.toString() });
    this.shown.set(uri.toString(), { result, source, map: new LineMap(result.map) });
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
    if (result.entry !== null) {
      const at = new vscode.Position(result.entry[0], 0);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.AtTop);
    }
    const sourceEditor = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === source.toString());
    if (sourceEditor !== undefined) {
      this.follow(sourceEditor);
    }
    return result;
  }

  /** The cursor moved in `editor`: highlight the matching lines on the other side. */
  private follow(editor: vscode.TextEditor): void {
    const line = editor.selection.active.line;
    if (editor.document.uri.scheme === SCHEME) {
      const shown = this.shown.get(editor.document.uri.toString());
      if (shown === undefined) {
        return;
      }
      const src = shown.map.sourceLine(line);
      editor.setDecorations(this.highlight, src === undefined ? [] : this.ranges(shown.map.listingLines(src)));
      for (const other of vscode.window.visibleTextEditors) {
        if (other.document.uri.toString() === shown.source.toString()) {
          other.setDecorations(this.highlight, src === undefined ? [] : [new vscode.Range(src, 0, src, 0)]);
          if (src !== undefined) {
            other.revealRange(new vscode.Range(src, 0, src, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
          }
        }
      }
      this.status.text = statusText(shown.source.path.split("/").pop() ?? "", src);
      this.status.tooltip = "The source line this assembly line came from (offload-ls)";
      this.status.show();
      return;
    }
    let said: string | undefined;
    for (const other of vscode.window.visibleTextEditors) {
      const shown = other.document.uri.scheme === SCHEME ? this.shown.get(other.document.uri.toString()) : undefined;
      if (shown === undefined || shown.source.toString() !== editor.document.uri.toString()) {
        continue;
      }
      const lines = shown.map.listingLines(line);
      other.setDecorations(this.highlight, this.ranges(lines));
      editor.setDecorations(this.highlight, lines.length > 0 ? [new vscode.Range(line, 0, line, 0)] : []);
      if (lines.length > 0) {
        other.revealRange(new vscode.Range(lines[0]!, 0, lines[0]!, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
      said = said ?? forwardStatus(shown.result.format, lines) ?? `$(file-binary) ${shown.result.format}: no lines`;
    }
    if (said === undefined) {
      this.status.hide();
      return;
    }
    this.status.text = said;
    this.status.tooltip = "Assembly lines of this source line (offload-ls)";
    this.status.show();
  }

  private ranges(lines: readonly number[]): vscode.Range[] {
    return runs(lines).map(([a, b]) => new vscode.Range(a, 0, b, 0));
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
