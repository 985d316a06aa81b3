#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `fast-json-patch`.
//
// An RFC 6902 library: `json-patch` cases under the `rfc` profile. Each case is answered by
// `jsonpatch.applyPatch(original, patch).newDocument`, the call its README shows, which
// leaves validation off (the library's default). `--validate` passes `validateOperation =
// true` instead, the library's own opt-in RFC checks. The protocol is the JavaScript kit's
// (adapters/kit/js), numbers JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-fast-json-patch/adapter.js" --type json-patch
'use strict';

const kit = require('../kit/js/patchconf-adapter');

const VALIDATE = process.argv.slice(2).includes('--validate');

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

kit.serve({
  name: VALIDATE ? 'js-fast-json-patch-validate' : 'js-fast-json-patch',
  library: 'fast-json-patch',
  dir: __dirname,
  homepage: 'https://github.com/Starcounter-Jack/JSON-Patch',
  patchTypes: ['json-patch'],
  profile: 'rfc',
  load: (modules) => modules.require('fast-json-patch'),
  answer: (jsonpatch, c) => ({
    document: VALIDATE
      ? jsonpatch.applyPatch(c.original, c.patch, true).newDocument
      : jsonpatch.applyPatch(c.original, c.patch).newDocument,
  }),
  errorClass: (jsonpatch, err) =>
    (err instanceof jsonpatch.JsonPatchError && ERROR_CLASSES[err.name]) || 'unclassified',
});
