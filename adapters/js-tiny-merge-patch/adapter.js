#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `tiny-merge-patch`.
//
// An RFC 7396 library (`rfc` profile): each `merge-patch` case is `apply(original, patch)`,
// which returns the merged document and leaves the original alone. It creates no patches
// and throws no errors of its own; anything thrown is `unclassified`. The package is an ES
// module, loaded with import(). The protocol is the JavaScript kit's (adapters/kit/js),
// numbers JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-tiny-merge-patch/adapter.js"
'use strict';

const kit = require('../kit/js/patchconf-adapter');

kit.serve({
  name: 'js-tiny-merge-patch',
  library: 'tiny-merge-patch',
  dir: __dirname,
  homepage: 'https://github.com/QuentinRoy/tiny-merge-patch',
  patchTypes: ['merge-patch'],
  profile: 'rfc',
  load: (modules) => modules.import('tiny-merge-patch'),
  answer: (lib, c) => ({ document: lib.apply(c.original, c.patch) }),
});
