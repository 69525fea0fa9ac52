import { readFile } from 'node:fs/promises';
import { load as parseYaml } from 'js-yaml';
import { isObject } from './json-pointer.js';

/**
 * Reads an OpenAPI document (YAML or JSON) and bundles any external `$ref`s into it, so the rest of
 * the sandbox works on one self-contained document with local references only.
 */
export async function loadDocument(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the OpenAPI document ${path}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    // JSON documents (GitHub's is 11 MB) parse natively; YAML with js-yaml, which we measured at a
    // sixth of the time of the \`yaml\` package on the Pet Store document.
    parsed = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`the OpenAPI document ${path} is not valid YAML or JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isObject(parsed) || typeof parsed.openapi !== 'string') {
    throw new Error(`${path} is not an OpenAPI 3 document: no "openapi" version field`);
  }
  if (!/^3\.[01]\./.test(parsed.openapi)) {
    throw new Error(`${path} is OpenAPI ${parsed.openapi}; the sandbox reads 3.0 and 3.1 documents`);
  }
  const hasExternal = /"\$ref":"(?!#)/.test(JSON.stringify(parsed));
  if (!hasExternal) return parsed;
  try {
    // Loaded only for documents that need it: it is a start-up cost single-file documents skip.
    const { default: $RefParser } = await import('@apidevtools/json-schema-ref-parser');
    return await $RefParser.bundle(path, parsed as never, {});
  } catch (error) {
    throw new Error(`cannot resolve the references of ${path}: ${(error as Error).message}`, { cause: error });
  }
}
