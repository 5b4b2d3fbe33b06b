// The Spindle extension: starts the language server `spindle lsp` over standard input
// and output for `.sp` files. Highlighting comes from syntaxes/spindle.tmLanguage.json,
// which follows the tree-sitter grammar's highlights.scm.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

/**
 * Starts the language client when a Spindle file is opened.
 * @param {vscode.ExtensionContext} context
 */
async function activate(context) {
  const config = vscode.workspace.getConfiguration('spindle');
  const command = config.get('server.path', 'spindle');
  const args = ['lsp', ...config.get('server.extraArgs', [])];

  /** @type {import('vscode-languageclient/node').ServerOptions} */
  const serverOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };

  /** @type {import('vscode-languageclient/node').LanguageClientOptions} */
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'spindle' },
      { scheme: 'untitled', language: 'spindle' },
    ],
  };

  client = new LanguageClient('spindle', 'Spindle', serverOptions, clientOptions);
  try {
    await client.start();
  } catch (error) {
    vscode.window.showErrorMessage(
      `Spindle: could not start \`${command} lsp\` (set spindle.server.path): ${error}`,
    );
  }
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

/** Stops the language server with the extension. */
function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
