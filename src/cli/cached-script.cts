// Runs a script the build wrote (scripts/bundle.mjs) with the V8 code cache the build made for it:
// the bundle the bin starts, and the parts of it loaded on first use (faker). Node 20 has no compile
// cache of its own (`module.enableCompileCache` came in Node 22) and caches only a script's, hence
// CommonJS scripts run through node:vm. V8 refuses a cache made by another Node or under other V8
// flags (then the script compiles as usual); `NODE_DEBUG=understudy` says which it was. CommonJS,
// like the bin: the bin requires it before anything else.
import fs = require('node:fs');
import nodeModule = require('node:module');
import path = require('node:path');
import util = require('node:util');
import vm = require('node:vm');

const debug = util.debuglog('understudy');

/**
 * Set by the build alone: when the process exits, each script run here writes the code it compiled
 * as its cache (beside it, `<file>.cache`).
 */
const WRITE_CACHE = process.env.UNDERSTUDY_WRITE_CODE_CACHE === '1';

/**
 * Runs `file`, which is CommonJS's own wrapper around the code (the build writes it so, in ASCII
 * alone: compiled as read, with no copy into a wrapped string, and decoded as Latin-1, which for
 * ASCII is the same text at a fraction of UTF-8's decoding time: 4 ms against 12 for 1.2 MB,
 * measured), and gives its `module.exports`. `name` names it in the debug line (none: the bundle).
 */
function runCached(file: string, name?: string): unknown {
  const cache = `${file}.cache`;
  let cachedData: Buffer | undefined;
  if (!WRITE_CACHE) {
    try {
      cachedData = fs.readFileSync(cache);
    } catch {
      // No cache (a build that made none): compiled as usual.
    }
  }
  const script = new vm.Script(fs.readFileSync(file, 'latin1'), { filename: file, cachedData });
  const state = cachedData === undefined ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'accepted';
  debug(name === undefined ? `code cache ${state}` : `code cache of ${name} ${state}`);
  if (WRITE_CACHE) process.once('exit', () => fs.writeFileSync(cache, script.createCachedData()));
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    nodeModule.createRequire(file),
    module,
    file,
    path.dirname(file),
  );
  return module.exports;
}

export = { runCached };
