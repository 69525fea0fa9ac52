// Writes the config's validator as code (Ajv's standalone output) beside the built loader, so a
// start loads a module instead of compiling the config schema (Ajv's first compile of a process,
// about 80 ms of every start). Run by `npm run build` and by `npm start` after compiling.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import standaloneCode from 'ajv/dist/standalone/index.js';

const dist = fileURLToPath(new URL('../dist/config/', import.meta.url));

/**
 * Ajv's ESM output still reaches its runtime helpers and the formats with require(): Node's, made
 * here. The bundle drops this line (scripts/bundle.mjs), so that its requires are the bundle's own.
 */
export const REQUIRE_PREAMBLE = "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";

/** Generates dist/config/config-validator.js from the built schema; the options are the loader's own. */
export async function writeConfigValidator() {
  const { CONFIG_SCHEMA, CONFIG_AJV_OPTIONS } = await import(`${dist}config-schema.js`);
  const ajv = new Ajv({ ...CONFIG_AJV_OPTIONS, code: { ...CONFIG_AJV_OPTIONS.code, source: true, esm: true } });
  addFormats.default(ajv);
  writeFileSync(`${dist}config-validator.js`, REQUIRE_PREAMBLE + standaloneCode.default(ajv, ajv.compile(CONFIG_SCHEMA)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeConfigValidator();
