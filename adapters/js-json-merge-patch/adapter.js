#!/usr/bin/env node
// patchconf command-protocol adapter (harness/PROTOCOL.md) for npm `json-merge-patch`.
//
// An RFC 7396 library (`rfc` profile):
// - `merge-patch`: `jsonmergepatch.apply(original, patch)`;
// - `merge-patch-2way`: `jsonmergepatch.generate(original, modified)`, and the document the
//   library's own `apply` makes of the original with that patch.
// It throws no typed errors, so every exception is `unclassified`. `generate` returns
// `undefined` when it finds no difference; that is not a JSON patch, so it is reported as
// an error saying so. The protocol is the JavaScript kit's (adapters/kit/js), numbers
// JavaScript's own.
//
//   patchconf run --target "cmd:node adapters/js-json-merge-patch/adapter.js"
'use strict';

const kit = require('../kit/js/patchconf-adapter');

function answer(jsonmergepatch, c) {
  if (c.type === 'merge-patch') return { document: jsonmergepatch.apply(c.original, c.patch) };
  const patch = jsonmergepatch.generate(c.original, c.modified);
  if (patch === undefined) {
    return kit.fail('unclassified', 'generate returned undefined (its answer when it finds no difference), not a patch');
  }
  const text = JSON.stringify(patch); // as created, before apply (which works in place) runs
  return { patch: JSON.parse(text), document: jsonmergepatch.apply(c.original, JSON.parse(text)) };
}

kit.serve({
  name: 'js-json-merge-patch',
  library: 'json-merge-patch',
  dir: __dirname,
  homepage: 'https://github.com/pierreinglebert/json-merge-patch',
  patchTypes: ['merge-patch', 'merge-patch-2way'],
  profile: 'rfc',
  load: (modules) => modules.require('json-merge-patch'),
  answer,
});
