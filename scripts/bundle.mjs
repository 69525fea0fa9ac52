// Bundles the built CLI (dist/cli/main.js) into dist/bin/: the program the `understudy` bin,
// `npm start`, the Dockerfile and the bench run. Node 20 loads an ES module graph file by file
// (resolve, read, compile, link each of some 240 modules) and has no compile cache: one file of
// everything a start needs, minified, reaches its first answer in about two thirds of the time.
// What only some configurations load (Redis, file watching, Swagger 2.0 conversion, external
// `$ref`s, XML) stays a package of its own in node_modules, imported when it is first used. Run by
// `npm run build` and by `npm start` after compiling.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Packages only some configurations import (dynamically): left to Node's own loader. */
const LOADED_ON_USE = ['ioredis', 'chokidar', 'fast-xml-parser', 'swagger2openapi', '@apidevtools/json-schema-ref-parser'];

/** Writes dist/bin/understudy.js (and its config validator, and the chunks loaded on use). */
export async function bundle() {
  rmSync(`${root}dist/bin`, { recursive: true, force: true });
  await build({
    entryPoints: {
      understudy: `${root}dist/cli/main.js`,
      // The loader imports its generated validator from beside itself.
      'config-validator': `${root}dist/config/config-validator.js`,
    },
    outdir: `${root}dist/bin`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: LOADED_ON_USE,
    // Whitespace and syntax only: names stay readable in a stack trace.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    // The bundled CommonJS packages (Ajv, pino) call require() for Node's own modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module';const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundle();
