// Checks the extension's static files without VS Code: every JSON file parses, the
// manifest names files that exist, and every regular expression compiles: the TextMate
// grammar's with Oniguruma (the engine VS Code uses, from the vscode-oniguruma
// devDependency), the language configuration's as JavaScript regular expressions.
// Run: npm install && npm run check.
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
let failures = 0;

function fail(message) {
  console.error(`error: ${message}`);
  failures += 1;
}

function readJson(rel) {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, rel), 'utf8'));
  } catch (e) {
    fail(`${rel}: ${e.message}`);
    return undefined;
  }
}

function compileJs(where, source) {
  try {
    new RegExp(source, 'u');
    return 1;
  } catch (e) {
    fail(`${where}: ${e.message}`);
    return 0;
  }
}

/** The Oniguruma compiler, or undefined when vscode-oniguruma is not installed. */
async function loadOniguruma() {
  let onig;
  try {
    onig = require('vscode-oniguruma');
  } catch {
    return undefined;
  }
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await onig.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return onig;
}

/**
 * Tokenizes a sample with vscode-textmate (the tokenizer VS Code uses) and checks the
 * scope of a few tokens, so that the grammar is known to work and not only to compile.
 * Returns how many tokens were checked.
 */
async function tokenizeSample(onig) {
  const textmate = require('vscode-textmate');
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
      createOnigString: (s) => new onig.OnigString(s),
    }),
    loadGrammar: async () =>
      textmate.parseRawGrammar(
        fs.readFileSync(path.join(root, 'syntaxes/spindle.tmLanguage.json'), 'utf8'),
        'spindle.tmLanguage.json',
      ),
  });
  const grammar = await registry.loadGrammar('source.spindle');
  const lines = [
    'total def count (xs : List Int) : Int = length xs - 1 -- note',
    "def x' = ['a', 'b'] ++ \"s\\n\" {- a {- nested -} comment -}",
    '  where y = match ?hole with | _ -> Type',
  ];
  // [line, text, a scope the token must have]
  const expected = [
    [0, 'total', 'keyword.other.spindle'],
    [0, 'count', 'entity.name.function.spindle'],
    [0, 'List', 'entity.name.type.spindle'],
    [0, '-', 'keyword.operator.spindle'],
    [0, '-- note', 'comment.line.double-dash.spindle'],
    [1, "x'", 'entity.name.function.spindle'],
    [1, "'a'", 'string.quoted.single.spindle'],
    [1, '\\n', 'constant.character.escape.spindle'],
    [1, ' comment ', 'comment.block.spindle'],
    [2, 'where', 'keyword.other.spindle'],
    [2, 'y', 'entity.name.function.spindle'],
    [2, 'match', 'keyword.control.spindle'],
    [2, '?hole', 'variable.language.hole.spindle'],
    [2, '_', 'variable.language.wildcard.spindle'],
    [2, 'Type', 'support.type.builtin.spindle'],
  ];
  let state = textmate.INITIAL;
  const found = [];
  lines.forEach((line, i) => {
    const result = grammar.tokenizeLine(line, state);
    for (const t of result.tokens) {
      found.push([i, line.slice(t.startIndex, t.endIndex), t.scopes]);
    }
    state = result.ruleStack;
  });
  for (const [line, text, scope] of expected) {
    const token = found.find(([l, t]) => l === line && t === text);
    if (!token) {
      fail(`sample line ${line}: no token '${text}'`);
    } else if (!token[2].includes(scope)) {
      fail(`sample line ${line}: '${text}' has scopes ${token[2].join(' ')}, expected ${scope}`);
    }
  }
  return expected.length;
}

async function main() {
  const onig = await loadOniguruma();
  if (!onig) {
    fail('vscode-oniguruma is not installed (npm install): the TextMate patterns are unchecked');
  }
  const compile = (where, source) => {
    if (!onig) return 0;
    try {
      const scanner = new onig.OnigScanner([source]);
      scanner.dispose();
      return 1;
    } catch (e) {
      fail(`${where}: ${e.message || e}`);
      return 0;
    }
  };

  const manifest = readJson('package.json');
  const config = readJson('language-configuration.json');
  const grammar = readJson('syntaxes/spindle.tmLanguage.json');

  if (manifest) {
    for (const f of [manifest.main, ...manifest.contributes.grammars.map((g) => g.path),
      ...manifest.contributes.languages.map((l) => l.configuration)]) {
      if (!fs.existsSync(path.join(root, f))) fail(`package.json names ${f}, which does not exist`);
    }
    if (!manifest.dependencies || !manifest.dependencies['vscode-languageclient']) {
      fail('package.json: vscode-languageclient is not a dependency');
    }
  }

  let count = 0;
  if (grammar) {
    // Walks every rule, compiling match/begin/end and checking includes.
    const walk = (rule, where) => {
      if (!rule || typeof rule !== 'object') return;
      for (const key of ['match', 'begin', 'end']) {
        if (typeof rule[key] === 'string') count += compile(`${where}.${key}`, rule[key]);
      }
      if (typeof rule.include === 'string' && rule.include.startsWith('#')) {
        const name = rule.include.slice(1);
        if (!grammar.repository[name]) fail(`${where}: include of unknown rule #${name}`);
      }
      (rule.patterns || []).forEach((r, i) => walk(r, `${where}.patterns[${i}]`));
    };
    walk(grammar, 'grammar');
    for (const [name, rule] of Object.entries(grammar.repository)) {
      walk(rule, `repository.${name}`);
    }
  }
  if (config) {
    count += compileJs('wordPattern', config.wordPattern);
    for (const [i, rule] of (config.onEnterRules || []).entries()) {
      count += compileJs(`onEnterRules[${i}].beforeText`, rule.beforeText);
    }
  }

  const tokens = onig && grammar ? await tokenizeSample(onig) : 0;

  if (failures > 0) {
    console.error(`${failures} problem(s)`);
    process.exit(1);
  }
  console.log(`ok: 3 JSON files, ${count} regular expressions compile, ${tokens} sample tokens scoped as expected`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
