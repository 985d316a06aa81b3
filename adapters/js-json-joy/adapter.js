#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for the JSON Patch module of npm
// `json-joy` (`json-joy/lib/json-patch`).
//
// An RFC 6902 implementation with extensions (predicates such as `defined`, and `inc`,
// `flip`, `str_ins`…), under the `rfc` profile. Each case is
// `applyPatch(original, patch, {mutate: false}).doc`, the call its README shows; the
// separate `validateOperations` is not called (it refuses an empty patch, which RFC 6902
// allows). It throws plain `Error`s whose message is a code: `TEST` (a test or predicate
// that does not hold) is `test-failed`, `INVALID_INDEX` `invalid-index`; the others
// (`NOT_FOUND` for a missing member or index alike, …) are `unclassified`. The protocol is
// the JavaScript kit's (adapters/kit/js), numbers JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-json-joy/adapter.js"
'use strict';

const kit = require('../kit/js/patchconf-adapter');

const ERROR_CLASSES = { TEST: 'test-failed', INVALID_INDEX: 'invalid-index' };

kit.serve({
  name: 'js-json-joy',
  library: 'json-joy',
  dir: __dirname,
  homepage: 'https://github.com/streamich/json-joy',
  patchTypes: ['json-patch'],
  profile: 'rfc',
  load: (modules) => modules.require('json-joy/lib/json-patch'),
  answer: (jsonPatch, c) => ({ document: jsonPatch.applyPatch(c.original, c.patch, { mutate: false }).doc }),
  errorClass: (jsonPatch, err) => (err instanceof Error && ERROR_CLASSES[err.message]) || 'unclassified',
});
