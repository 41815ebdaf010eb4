// Starts pgn-lsp for PGN files and hands it the `pgn` settings.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(_context: vscode.ExtensionContext): Promise<void> {
  const settings = vscode.workspace.getConfiguration("pgn");
  const command = settings.get<string>("server.path") || "pgn-lsp";
  const serverOptions: ServerOptions = { command, args: ["serve"] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "pgn" }, { scheme: "untitled", language: "pgn" }],
    // The server asks for the `pgn` section (workspace/configuration) and is told of changes.
    synchronize: { configurationSection: "pgn" },
    initializationOptions: { pgn: JSON.parse(JSON.stringify(settings)) },
    middleware: {
      // The `pgn.*` commands run in the server; from the command palette they get no
      // arguments, so they are given the active document's URI and the cursor's position
      // (the game under the cursor).
      executeCommand: async (name, args, next) => {
        if (name === "pgn.setExplorerFilter" && args.length === 0) {
          const filter = await askExplorerFilter();
          if (filter === undefined) {
            return undefined;
          }
          const answer = await next(name, [filter]);
          void vscode.window.showInformationMessage(`The explorer counts ${answer?.filter ?? "?"}`);
          return answer;
        }
        const editor = vscode.window.activeTextEditor;
        if (args.length > 0 || editor === undefined) {
          return next(name, args);
        }
        const cursor = editor.selection.active;
        return next(name, [editor.document.uri.toString(), { line: cursor.line, character: cursor.character }]);
      },
    },
  };
  client = new LanguageClient("pgn-lsp", "PGN", serverOptions, clientOptions);
  await client.start();
}

// The explorer's filter as `key=value` words (`player=Carlsen color=black since=2020`); empty:
// every game. Undefined when the box is dismissed or a word is not `key=value`.
async function askExplorerFilter(): Promise<Record<string, string | number> | undefined> {
  const text = await vscode.window.showInputBox({
    title: "Which games the explorer counts",
    prompt: "player=… color=white|black since=… until=… minElo=… maxElo=… speed=blitz|rapid|…; empty: every game",
    placeHolder: "player=Carlsen color=black since=2020",
  });
  if (text === undefined) {
    return undefined;
  }
  const filter: Record<string, string | number> = {};
  for (const word of text.split(/\s+/).filter((w) => w.length > 0)) {
    const match = /^(\w+)=(.*)$/.exec(word);
    if (match === null) {
      void vscode.window.showErrorMessage(`${word} is not key=value`);
      return undefined;
    }
    const [, key, value] = match;
    filter[key] = (key === "minElo" || key === "maxElo") && /^\d+$/.test(value) ? Number(value) : value;
  }
  return filter;
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
