#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `rfc6902`.
//
// An RFC 6902 library (`rfc` profile). `applyPatch(object, patch)` patches `object` in place
// and returns one entry per operation: null when it applied, an error object when it did
// not, going on with the next operation either way. Its users check that list, so a
// patch whose list holds an error is answered with the first error: `TestError` is
// `test-failed`, `InvalidOperationError` `invalid-patch`; `MissingError` stands for a
// missing member and a bad or out-of-range index alike, so it is `unclassified`, as is
// anything thrown (a malformed pointer, a patch that is not an array). Otherwise the
// document is the object after the call. The protocol is the JavaScript kit's
// (adapters/kit/js), numbers JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-rfc6902/adapter.js"
'use strict';

const kit = require('../kit/js/patchconf-adapter');

const ERROR_CLASSES = { TestError: 'test-failed', InvalidOperationError: 'invalid-patch' };

function answer(rfc6902, c) {
  const document = c.original;
  const failed = rfc6902.applyPatch(document, c.patch).find((error) => error !== null);
  if (failed) return kit.fail(ERROR_CLASSES[failed.name] || 'unclassified', kit.describe(failed));
  return { document };
}

kit.serve({
  name: 'js-rfc6902',
  library: 'rfc6902',
  dir: __dirname,
  homepage: 'https://github.com/chbrown/rfc6902',
  patchTypes: ['json-patch'],
  profile: 'rfc',
  load: (modules) => modules.require('rfc6902'),
  answer,
});
