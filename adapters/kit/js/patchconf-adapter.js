// The protocol half of a patchconf JavaScript adapter (harness/PROTOCOL.md): the handshake,
// the request loop, the library's exceptions turned into that case's error, and answers
// written as JSON or not at all. An adapter says who it is, what it runs, how its library
// is loaded and how one case is answered:
//
//   const kit = require('../kit/js/patchconf-adapter');
//   kit.serve({
//     name: 'js-my-lib', library: 'my-lib', dir: __dirname,
//     patchTypes: ['json-patch'], profile: 'rfc',
//     load: (modules) => modules.require('my-lib'),  // or modules.import('my-lib') for an ES module
//     answer: (lib, c) => ({ document: lib.apply(c.original, c.patch) }),
//   });
//
// CommonJS, Node 18+, no dependencies.
//
// Numbers: requests are read with JSON.parse, as the libraries' users read JSON, so numbers
// are JavaScript numbers: integers beyond 2^53 lose precision and `1.0` comes back as `1`.
// That is the runtime's behaviour, left as it is and judged as the library's. The kit adds
// no loss of its own: a result holding NaN or an infinity (which JSON.stringify would quietly
// write as null), a BigInt, a cycle or `undefined` as the document or patch is that case's
// `unclassified` error instead of a wrong or broken answer.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');
const { pathToFileURL } = require('url');

const PROTOCOL_VERSION = 1;

class Fail {
  constructor(errorClass, message) {
    this.errorClass = errorClass;
    this.message = message;
  }
}

class Skip {
  constructor(reason) {
    this.reason = reason;
  }
}

/** A case's error answer: one of patchconf's classes (PROTOCOL.md section 3) and the message. */
function fail(errorClass, message) {
  return new Fail(errorClass, message);
}

/** A case the adapter declines after all, with the reason. */
function skip(reason) {
  return new Skip(reason);
}

/** An exception as a message: its name (unless the text already says it), then its text. */
function describe(err) {
  if (!(err instanceof Error)) return `thrown: ${String(err)}`;
  const text = String(err.message);
  return err.name && !text.includes(err.name) ? `${err.name}: ${text}` : text;
}

function errorAnswer(seq, errorClass, message) {
  return { seq, error: { class: errorClass, message } };
}

/**
 * Where the library is installed: the directory `--modules DIR` names (another release, e.g. the
 * adapter's previous/, for tox -e peer-history), else the adapter's own.
 */
function modulesDir(ownDir, argv = process.argv.slice(2)) {
  const at = argv.indexOf('--modules');
  return at >= 0 && argv[at + 1] ? path.resolve(argv[at + 1]) : ownDir;
}

/** What an adapter's load() gets: require() and import() resolving from `dir`'s node_modules. */
function moduleLoader(dir) {
  const requireFrom = createRequire(path.join(dir, 'package.json'));
  return {
    require: requireFrom,
    /** An ES module (a package whose "exports" or "module" names its ES entry), else require()'s. */
    import: (name) => {
      const root = path.join(dir, 'node_modules', ...name.split('/'));
      const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
      let entry = manifest.exports && typeof manifest.exports === 'object' && '.' in manifest.exports
        ? manifest.exports['.'] : manifest.exports;
      while (entry && typeof entry === 'object') entry = entry.import || entry.node || entry.default;
      entry = entry || manifest.module;
      return entry ? import(pathToFileURL(path.join(root, entry)).href) : Promise.resolve(requireFrom(name));
    },
  };
}

/** The version in node_modules/<library>/package.json under `dir` (what npm ci installed). */
function installedVersion(dir, library) {
  const manifest = path.join(dir, 'node_modules', ...library.split('/'), 'package.json');
  return JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
}

/** JSON text of an answer, refusing what JSON cannot carry instead of writing something else. */
function stringify(value) {
  return JSON.stringify(value, (key, item) => {
    if (typeof item === 'number' && !Number.isFinite(item)) {
      throw new Error(`${item} is not a JSON number (at ${JSON.stringify(key)})`);
    }
    return item;
  });
}

/** One answer line; a result JSON cannot carry becomes an error of the same case. */
function encode(answer) {
  try {
    return stringify(answer);
  } catch (err) { // NaN, Infinity, a BigInt, a cycle
    return stringify(errorAnswer(answer.seq, 'unclassified', `the library's output is not JSON: ${describe(err)}`));
  }
}

/**
 * An adapter: `spec` is
 *   name, library (npm package name), dir (the adapter's directory, holding node_modules),
 *   homepage?, patchTypes, schemas = ['none'], profile = 'kubernetes', messages = false,
 *   load(modules) -> the library (or a promise of it); modules.require / modules.import load from
 *     node_modules beside the adapter, or under the directory `--modules DIR` names (another release),
 *   answer(lib, case) -> result object | fail(...) | skip(...) (or a promise of one),
 *   errorClass(lib, err) -> class of an exception (default 'unclassified').
 */
class Adapter {
  constructor(spec) {
    this.spec = { schemas: ['none'], profile: 'kubernetes', messages: false, errorClass: () => 'unclassified', ...spec };
    this.lib = undefined;
    this.loadError = null;
  }

  async load() {
    try {
      const dir = modulesDir(this.spec.dir);
      this.version = installedVersion(dir, this.spec.library);
      this.lib = await this.spec.load(moduleLoader(dir));
    } catch (err) {
      this.loadError = `cannot load ${this.spec.library}: ${describe(err)} (run npm ci in ${modulesDir(this.spec.dir)})`;
    }
  }

  handshake() {
    if (this.loadError) return { ready: false, error: this.loadError };
    const { name, homepage, patchTypes, schemas, profile, messages } = this.spec;
    const implementation = { name, version: this.version, language: 'javascript' };
    if (homepage) implementation.homepage = homepage;
    return {
      ready: true,
      protocol: PROTOCOL_VERSION,
      implementation,
      capabilities: { patch_types: patchTypes, schemas, profile, messages },
    };
  }

  /** The answer to one `run` request; the library's failure is the case's answer. */
  async run(seq, c) {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) {
      return errorAnswer(seq, 'unclassified', `the request's case is not an object: ${JSON.stringify(c)}`);
    }
    if (!this.spec.patchTypes.includes(c.type)) {
      return { seq, skipped: `${this.spec.name} does not run ${JSON.stringify(c.type)} cases` };
    }
    let answer;
    try {
      answer = await this.spec.answer(this.lib, c);
    } catch (err) {
      let errorClass = 'unclassified';
      try {
        errorClass = this.spec.errorClass(this.lib, err);
      } catch (classifyErr) { // a broken classifier must not end the program either
        return errorAnswer(seq, 'unclassified', `${describe(err)} (classifying it failed: ${describe(classifyErr)})`);
      }
      return errorAnswer(seq, errorClass, describe(err));
    }
    if (answer instanceof Skip) return { seq, skipped: answer.reason };
    if (answer instanceof Fail) return errorAnswer(seq, answer.errorClass, answer.message);
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) {
      return errorAnswer(seq, 'unclassified', `the adapter's answer is not a result object: ${String(answer)}`);
    }
    for (const [key, value] of Object.entries(answer)) {
      if (value === undefined) { // JSON.stringify would drop the member without a word
        return errorAnswer(seq, 'unclassified', `the library returned undefined as the ${key}`);
      }
    }
    return { seq, result: answer };
  }

  /** The answer to one request line, or null for `stop`. */
  async respond(line) {
    let request;
    try {
      request = JSON.parse(line);
    } catch (err) { // no seq to echo: the harness names the broken exchange
      return errorAnswer(null, 'unclassified', `unreadable request: ${describe(err)}`);
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      return errorAnswer(null, 'unclassified', `the request is not a JSON object: ${line.slice(0, 200)}`);
    }
    const seq = request.seq === undefined ? null : request.seq;
    switch (request.cmd) {
      case 'start': return this.handshake();
      case 'stop': return null;
      case 'run': return this.run(seq, request.case);
      default: return errorAnswer(seq, 'unclassified', `unknown command ${JSON.stringify(request.cmd)}`);
    }
  }

  /** Answer request lines from input on output, one line each, until `stop` or the end of input. */
  async serve(input = process.stdin, output = process.stdout) {
    await this.load();
    const lines = readline.createInterface({ input, terminal: false, crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      const answer = await this.respond(line);
      if (answer === null) break;
      output.write(encode(answer) + '\n');
    }
    lines.close();
  }
}

/** Serve stdin and stdout with the adapter `spec` describes, then exit 0 (1 if the loop itself breaks). */
function serve(spec) {
  new Adapter(spec).serve().then(
    () => process.stdout.write('', () => process.exit(0)),
    (err) => {
      process.stderr.write(`patchconf adapter ${spec.name}: ${err && err.stack || err}\n`);
      process.exit(1);
    },
  );
}

module.exports = { Adapter, serve, fail, skip, describe, encode, modulesDir, moduleLoader, PROTOCOL_VERSION };
