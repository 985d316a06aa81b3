#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `fast-json-patch`.
//
// An RFC 6902 library: `json-patch` cases under the `rfc` profile. Each case is answered by
// `jsonpatch.applyPatch(original, patch).newDocument`, the call its README shows, which
// leaves validation off (the library's default). `--validate` passes `validateOperation =
// true` instead, the library's own opt-in RFC checks. JSON is read with JSON.parse, as
// the library's users do: integers beyond 2^53 lose precision (the runtime's real
// behaviour, left as it is).
//
//   patchconf run --target "cmd:node adapters/js-fast-json-patch/adapter.js" --type json-patch
'use strict';

const path = require('path');
const readline = require('readline');

const LIBRARY = 'fast-json-patch';
const NAME = 'js-fast-json-patch';
const HOMEPAGE = 'https://github.com/Starcounter-Jack/JSON-Patch';
const VALIDATE = process.argv.slice(2).includes('--validate');

let jsonpatch = null;
let version = null;
let loadError = null;
try {
  jsonpatch = require(LIBRARY);
  version = require(path.join(path.dirname(require.resolve(LIBRARY)), 'package.json')).version;
} catch (err) {
  loadError = String(err && err.message || err);
}

// JsonPatchError.name is the library's documented error code; each of these names one
// patchconf class. Anything else (TypeError, RangeError, ...) is unclassified.
const ERROR_CLASSES = {
  SEQUENCE_NOT_AN_ARRAY: 'invalid-patch',
  OPERATION_NOT_AN_OBJECT: 'invalid-patch',
  OPERATION_OP_INVALID: 'invalid-patch',
  OPERATION_PATH_INVALID: 'invalid-patch',
  OPERATION_FROM_REQUIRED: 'invalid-patch',
  OPERATION_VALUE_REQUIRED: 'invalid-patch',
  OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED: 'invalid-patch',
  OPERATION_PATH_CANNOT_ADD: 'path-not-found',
  OPERATION_PATH_UNRESOLVABLE: 'path-not-found',
  OPERATION_FROM_UNRESOLVABLE: 'path-not-found',
  OPERATION_PATH_ILLEGAL_ARRAY_INDEX: 'invalid-index',
  OPERATION_VALUE_OUT_OF_BOUNDS: 'invalid-index',
  TEST_OPERATION_FAILED: 'test-failed',
};

function errorAnswer(seq, err) {
  let errorClass = 'unclassified';
  if (jsonpatch && err instanceof jsonpatch.JsonPatchError && ERROR_CLASSES[err.name]) {
    errorClass = ERROR_CLASSES[err.name];
  }
  const text = String(err && err.message !== undefined ? err.message : err);
  const label = err && err.name && !text.includes(err.name) ? `${err.name}: ` : '';
  return { seq, error: { class: errorClass, message: label + text } };
}

function handshake() {
  return {
    ready: true,
    protocol: 1,
    implementation: { name: VALIDATE ? `${NAME}-validate` : NAME, version, language: 'javascript', homepage: HOMEPAGE },
    capabilities: { patch_types: ['json-patch'], schemas: ['none'], profile: 'rfc', messages: false },
  };
}

function run(seq, c) {
  if (c.type !== 'json-patch') {
    return { seq, skipped: `${NAME} does not run ${JSON.stringify(c.type)} cases` };
  }
  try {
    const document = VALIDATE
      ? jsonpatch.applyPatch(c.original, c.patch, true).newDocument
      : jsonpatch.applyPatch(c.original, c.patch).newDocument;
    if (document === undefined) {
      return { seq, error: { class: 'unclassified', message: 'applyPatch returned undefined as the document' } };
    }
    return { seq, result: { document } };
  } catch (err) { // the library's failure is its answer
    return errorAnswer(seq, err);
  }
}

function answer(request) {
  if (request.cmd === 'start') {
    if (!jsonpatch) return { ready: false, error: `cannot load ${LIBRARY}: ${loadError}` };
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
