#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `json-merge-patch`.
//
// An RFC 7396 library (`rfc` profile):
// - `merge-patch`: `jsonmergepatch.apply(original, patch)`;
// - `merge-patch-2way`: `jsonmergepatch.generate(original, modified)`, and the document the
//   library's own `apply` makes of the original with that patch.
// It throws no typed errors, so every exception is `unclassified`. `generate` returns
// `undefined` when it finds no difference; that is not a JSON patch, so it is reported as
// an error saying so. JSON is read with JSON.parse, as the library's users do: integers
// beyond 2^53 lose precision (the runtime's real behaviour, left as it is).
//
//   patchconf run --target "cmd:node adapters/js-json-merge-patch/adapter.js"
'use strict';

const path = require('path');
const readline = require('readline');

const LIBRARY = 'json-merge-patch';
const NAME = 'js-json-merge-patch';
const HOMEPAGE = 'https://github.com/pierreinglebert/json-merge-patch';
const PATCH_TYPES = ['merge-patch', 'merge-patch-2way'];

let jsonmergepatch = null;
let version = null;
let loadError = null;
try {
  jsonmergepatch = require(LIBRARY);
  version = require(path.join(path.dirname(require.resolve(LIBRARY)), 'package.json')).version;
} catch (err) {
  loadError = String(err && err.message || err);
}

function errorAnswer(seq, message) {
  return { seq, error: { class: 'unclassified', message } };
}

function handshake() {
  return {
    ready: true,
    protocol: 1,
    implementation: { name: NAME, version, language: 'javascript', homepage: HOMEPAGE },
    capabilities: { patch_types: PATCH_TYPES, schemas: ['none'], profile: 'rfc', messages: false },
  };
}

function run(seq, c) {
  if (!PATCH_TYPES.includes(c.type)) {
    return { seq, skipped: `${NAME} does not run ${JSON.stringify(c.type)} cases` };
  }
  try {
    if (c.type === 'merge-patch') {
      const document = jsonmergepatch.apply(c.original, c.patch);
      if (document === undefined) return errorAnswer(seq, 'apply returned undefined as the document');
      return { seq, result: { document } };
    }
    const patch = jsonmergepatch.generate(c.original, c.modified);
    if (patch === undefined) {
      return errorAnswer(seq, 'generate returned undefined (its answer when it finds no difference), not a patch');
    }
    const text = JSON.stringify(patch); // as created, before apply (which works in place) runs
    const document = jsonmergepatch.apply(c.original, JSON.parse(text));
    const result = { patch: JSON.parse(text) };
    if (document !== undefined) result.document = document;
    return { seq, result };
  } catch (err) { // the library's failure is its answer
    const text = String(err && err.message !== undefined ? err.message : err);
    return errorAnswer(seq, err && err.name ? `${err.name}: ${text}` : text);
  }
}

function answer(request) {
  if (request.cmd === 'start') {
    if (!jsonmergepatch) return { ready: false, error: `cannot load ${LIBRARY}: ${loadError}` };
    return handshake();
  }
  if (request.cmd === 'run') return run(request.seq, request.case || {});
  return { seq: request.seq, error: { class: 'unclassified', message: `unknown command ${JSON.stringify(request.cmd)}` } };
}

function send(message, seq) {
  let line;
  try {
    line = JSON.stringify(message);
  } catch (err) { // e.g. a cyclic result
    line = JSON.stringify({ seq, error: { class: 'unclassified', message: `result is not JSON: ${err.message}` } });
  }
  process.stdout.write(line + '\n');
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  if (request.cmd === 'stop') {
    input.close();
    process.stdout.write('', () => process.exit(0));
    return;
  }
  send(answer(request), request.seq);
});
