import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describeBroken, scanReferences } from './check-refs.js';
import { isObject, settled } from './json-pointer.js';
import { locateJsonError, locateYamlError } from './locate-parse-error.js';
import { asWritten, type Locate } from './original-location.js';
import { parseYaml } from './parse-yaml.js';
import { convertSwagger2 } from './swagger2.js';

/** What loading reports as it goes; the CLI turns it into progress lines, tests ignore it. */
export type LoadProgress =
  | { readonly phase: 'loading'; readonly file: string }
  | { readonly phase: 'converting'; readonly from: 'Swagger 2.0' }
  | { readonly phase: 'warning'; readonly message: string };

export interface LoadedDocument {
  /** An OpenAPI 3.0, 3.1 or 3.2 document with local references only. */
  readonly document: unknown;
  /** The version the file declares (`2.0`, `3.0.3`, `3.1.0`, `3.2.0`). */
  readonly sourceVersion: string;
  /** What the sandbox accepted but could not carry over exactly (located in the user's file). */
  readonly warnings: readonly string[];
  /**
   * Where a pointer into `document` stands in the user's file: the same pointer for OpenAPI 3.x, the
   * place in the 2.0 original for a converted Swagger 2.0 document. Hand it to `buildApiModel`.
   */
  readonly locate: Locate;
  /** Every file read: the document, then each file its `$ref`s reached (absolute paths), to watch for changes. */
  readonly files: readonly string[];
}

export interface ReadOptions {
  readonly onProgress?: ((event: LoadProgress) => void) | undefined;
  /** Where parsed YAML is cached (`cacheDir` in the config: parse-yaml.ts); null or absent: parsed every time. */
  readonly cacheDir?: string | null | undefined;
}

/**
 * Reads an OpenAPI document (YAML or JSON), bundles any external `$ref`s into it, checks that every
 * reference resolves, and converts Swagger 2.0 into OpenAPI 3.0, so the rest of the sandbox works
 * on one self-contained 3.x document. A document that is broken stops here with a message naming
 * the file and the line (a parse error) or the JSON pointer (a reference), in the user's own file.
 */
export async function readDocument(path: string, { onProgress, cacheDir = null }: ReadOptions = {}): Promise<LoadedDocument> {
  onProgress?.({ phase: 'loading', file: path });
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the OpenAPI document ${path}: ${(error as Error).message}`, { cause: error });
  }
  const json = /\.json$/i.test(path);
  // A byte-order mark is not part of the document (RFC 8259 §8.1 lets a parser ignore it): some
  // published documents start with one.
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  let parsed: unknown;
  try {
    // JSON documents (GitHub's is 11 MB) parse natively; YAML with js-yaml, which we measured at a
    // sixth of the time of the \`yaml\` package on the Pet Store document, through the parse cache.
    parsed = json ? JSON.parse(text) : parseYaml(text, cacheDir);
  } catch (error) {
    throw new Error(json ? locateJsonError(path, text, error) : locateYamlError(path, error), { cause: error });
  }
  const version = versionOf(path, parsed);
  // One walk finds both the external references to bundle and the local ones that go nowhere.
  let scan = scanReferences(parsed);
  let bundled = parsed;
  let files = [resolve(path)];
  if (scan.external) {
    const result = await bundle(path, parsed);
    bundled = result.bundled;
    files = [...new Set([...files, ...result.files])];
    scan = scanReferences(bundled);
  }
  if (scan.broken.length > 0) throw new Error(describeBroken(path, scan.broken));
  // What is handed on is never changed again: what is found in it can be remembered.
  if (version !== '2.0') return { document: settled(bundled), sourceVersion: version, warnings: [], locate: asWritten, files };
  onProgress?.({ phase: 'converting', from: 'Swagger 2.0' });
  const { document, warnings, locate } = await convertSwagger2(bundled);
  for (const message of warnings) onProgress?.({ phase: 'warning', message });
  return { document: settled(document), sourceVersion: version, warnings, locate, files };
}

/** The document alone (for callers with no use for progress or warnings). */
export async function loadDocument(path: string, cacheDir: string | null = null): Promise<unknown> {
  return (await readDocument(path, { cacheDir })).document;
}

/** `2.0` (Swagger), `3.0.x`, `3.1.x` or `3.2.x`; any other stops the start naming what the file says. */
function versionOf(path: string, parsed: unknown): string {
  if (!isObject(parsed)) throw new Error(`${path} is not an OpenAPI document: it holds no object`);
  if (typeof parsed.swagger === 'string' || typeof parsed.swagger === 'number') {
    const swagger = String(parsed.swagger);
    // YAML reads an unquoted `swagger: 2.0` as the number 2.
    if (swagger === '2.0' || swagger === '2') return '2.0';
    throw new Error(`${path} is Swagger ${swagger}; the sandbox reads Swagger 2.0 and OpenAPI 3.0, 3.1 and 3.2`);
  }
  if (typeof parsed.openapi !== 'string') throw new Error(`${path} is not an OpenAPI document: no "openapi" or "swagger" version field`);
  if (!/^3\.[0-2]\./.test(parsed.openapi)) {
    throw new Error(`${path} is OpenAPI ${parsed.openapi}; the sandbox reads Swagger 2.0 and OpenAPI 3.0, 3.1 and 3.2`);
  }
  return parsed.openapi;
}

/** The document with its external references bundled in, and the files they reached. */
async function bundle(path: string, parsed: unknown): Promise<{ readonly bundled: unknown; readonly files: readonly string[] }> {
  try {
    // Loaded only for documents that need it: it is a start-up cost single-file documents skip.
    const { $RefParser } = await import('@apidevtools/json-schema-ref-parser');
    const parser = new $RefParser();
    const bundled = await parser.bundle(path, parsed as never, {});
    return { bundled, files: parser.$refs.paths('file').map((file: string) => resolve(file)) };
  } catch (error) {
    const missing = missingFile(error);
    const why = missing === undefined ? (error as Error).message : `${MISSING_OPEN}${missing}${MISSING_CLOSE}`;
    throw new Error(`cannot resolve the references of ${path}: ${why}`, { cause: error });
  }
}

/** How a failure names a `$ref`'d file that does not exist: `missingReferences` reads it back. */
const MISSING_OPEN = 'no file "';
const MISSING_CLOSE = '" (named by a $ref)';

/** The file a reference parser's failure could not find (`ENOENT`), if that is why it failed. */
function missingFile(error: unknown): string | undefined {
  const { source, ioErrorCode } = (error ?? {}) as { source?: unknown; ioErrorCode?: unknown };
  return ioErrorCode === 'ENOENT' && typeof source === 'string' ? resolve(source) : undefined;
}

/**
 * The `$ref`'d files a load's failure messages say do not exist: a watcher watches them too, so
 * that writing the file a reload lacked sets off the next one.
 */
export function missingReferences(messages: readonly string[]): readonly string[] {
  const files = messages.flatMap((message) => {
    const start = message.indexOf(MISSING_OPEN);
    const end = message.indexOf(MISSING_CLOSE, start);
    return start < 0 || end < 0 ? [] : [message.slice(start + MISSING_OPEN.length, end)];
  });
  return [...new Set(files)];
}
