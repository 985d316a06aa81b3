#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `immutable-json-patch`.
//
// An RFC 6902 library (`rfc` profile): each case is `immutableJSONPatch(original, patch)`,
// which returns a new document and leaves the original alone. It throws plain `Error`s
// (and a `TypeError` for an array expected), so every error is `unclassified`. The package
// is an ES module, loaded with import(). The protocol is the JavaScript kit's
// (adapters/kit/js), numbers JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-immutable-json-patch/adapter.js"
'use strict';

const kit = require('../kit/js/patchconf-adapter');

kit.serve({
  name: 'js-immutable-json-patch',
  library: 'immutable-json-patch',
  dir: __dirname,
  homepage: 'https://github.com/josdejong/immutable-json-patch',
  patchTypes: ['json-patch'],
  profile: 'rfc',
  load: (modules) => modules.import('immutable-json-patch'),
  answer: (lib, c) => ({ document: lib.immutableJSONPatch(c.original, c.patch) }),
});
