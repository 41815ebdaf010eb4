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

export async function deactivate(): Promise<void> {
  await client?.stop();
}
