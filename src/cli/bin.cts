#!/usr/bin/env -S node --max-semi-space-size=4 --min-semi-space-size=4
// The `understudy` bin. The flags: a young generation of 4 MiB semi-spaces (instead of up to 16)
// keeps the RSS under load about 25 MB lower at the same throughput (measured with wrk on the list
// scenario); starting at 4 (instead of 1) spares a start two of its three scavenges, about 10 ms
// (20 interleaved rounds: 198 -> 188 ms median). V8 reads them only at start, so they are given
// here, in `npm start`, in the Dockerfile and compose.yaml, and read from here by the build, the
// bench and the CLI tests (test/unit/start-flags.test.ts holds them together).
//
// It runs the CLI (main.ts) from its bundle, dist/bin/understudy.cjs (scripts/bundle.mjs), with the
// V8 code cache the build made for it (cached-script.cts): one file instead of a graph of some 240
// ES modules loaded one by one, and the functions a start runs already compiled. The bin is
// CommonJS too (bin.cts, built as bin.cjs): Node starts a CommonJS main without setting up its ES
// module loader, about 10 ms sooner (measured).
import path = require('node:path');
import cachedScript = require('./cached-script.cjs');

cachedScript.runCached(path.join(__dirname, '../bin/understudy.cjs'));
