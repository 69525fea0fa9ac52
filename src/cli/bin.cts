#!/usr/bin/env -S node --max-semi-space-size=4
// The `understudy` bin. The flag: a young generation of 4 MiB semi-spaces (instead of 16) keeps the
// RSS under load about 25 MB lower at the same throughput (measured with wrk on the list scenario).
// V8 reads it only at start, so it is given here, in `npm start`, in the Dockerfile and the bench.
//
// It runs the CLI (main.ts) from its bundle, dist/bin/understudy.cjs (scripts/bundle.mjs), compiled
// with the V8 code cache the build made for it: one file instead of a graph of some 240 ES modules
// loaded one by one, and the functions a start runs already compiled. Node 20 has no compile cache
// of its own (`module.enableCompileCache` came in Node 22), and caches only a script's, hence a
// CommonJS bundle run through node:vm. V8 refuses a cache made by another Node or under other V8
// flags (then the bundle compiles as usual); `NODE_DEBUG=understudy` says which it was. The bin is
// CommonJS too (bin.cts, built as bin.cjs): Node starts a CommonJS main without setting up its ES
// module loader, about 10 ms sooner (measured).
import fs = require('node:fs');
import nodeModule = require('node:module');
import path = require('node:path');
import util = require('node:util');
import vm = require('node:vm');

const debug = util.debuglog('understudy');
const BUNDLE = path.join(__dirname, '../bin/understudy.cjs');
const CACHE = `${BUNDLE}.cache`;
/** Set by the build alone: write the code this run compiled, as the cache, when it exits. */
const WRITE_CACHE = process.env.UNDERSTUDY_WRITE_CODE_CACHE;

let cachedData: Buffer | undefined;
if (!WRITE_CACHE) {
  try {
    cachedData = fs.readFileSync(CACHE);
  } catch {
    // No cache (a build that made none): compiled as usual.
  }
}
// The bundle is CommonJS's own wrapper around the code (the build writes it so, in ASCII alone):
// compiled as read, with no copy into a wrapped string, and decoded as Latin-1, which for ASCII is
// the same text at a fraction of UTF-8's decoding time (4 ms against 12 for 1.2 MB, measured).
const script = new vm.Script(fs.readFileSync(BUNDLE, 'latin1'), {
  filename: BUNDLE,
  cachedData,
});
debug(`code cache ${cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted'}`);
if (WRITE_CACHE) process.once('exit', () => fs.writeFileSync(WRITE_CACHE, script.createCachedData()));
const bundle = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)(
  bundle.exports,
  nodeModule.createRequire(BUNDLE),
  bundle,
  BUNDLE,
  path.dirname(BUNDLE),
);
