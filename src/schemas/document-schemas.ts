import { directionalView } from '../openapi/directional.js';
import { follow, isObject, type Located } from '../openapi/json-pointer.js';
import { schemaDialect } from '../openapi/schema-dialect.js';
import { SchemaCompiler } from '../validation/schema-compiler.js';

/**
 * One schema compiler per document, shared by answer generation and dispatch to check what they
 * are about to send (an example, a generated value, a record) against the schema it must satisfy.
 * Validators are compiled on first use of each pointer and kept.
 */
const compilers = new WeakMap<object, SchemaCompiler>();
/** Documents whose validators are kept between starts, and where (`keepValidators`). */
const kept = new WeakMap<object, string>();

export function compilerFor(document: unknown): SchemaCompiler {
  const key = isObject(document) ? document : {};
  let compiler = compilers.get(key);
  if (!compiler) {
    compilers.set(key, (compiler = new SchemaCompiler(document, schemaDialect(document), kept.get(key) ?? null)));
  }
  return compiler;
}

/**
 * Keeps the validators compiled for `document` (and for its request and response views, which
 * generation compiles against) in `cacheDir` between starts (schema-compiler.ts). Called once a
 * document is loaded, before anything compiles against it.
 */
export function keepValidators(document: unknown, cacheDir: string): void {
  for (const view of [document, directionalView(document, 'request'), directionalView(document, 'response')]) {
    if (isObject(view) && !compilers.has(view)) kept.set(view, cacheDir);
  }
}

/** Whether `value` satisfies the schema at `pointer` (no schema: anything does). */
export function satisfies(document: unknown, pointer: string | undefined, value: unknown): boolean {
  return pointer === undefined || compilerFor(document).compile(pointer)(value);
}

/**
 * `follow`, remembered per document and pointer. Generating a store's rows resolves the same few
 * pointers for every row: walking them again was half of what seeding cost (measured on 50,000
 * Pet Store pets). Like the compilers above, this relies on a document served being left as it is
 * once loaded (a reload brings a new one). A pointer that cannot be followed throws every time.
 */
const resolved = new WeakMap<object, Map<string, Located>>();

export function followed(document: unknown, pointer: string): Located {
  if (!isObject(document)) return follow(document, pointer);
  let known = resolved.get(document);
  if (!known) resolved.set(document, (known = new Map<string, Located>()));
  let located = known.get(pointer);
  if (!located) known.set(pointer, (located = follow(document, pointer)));
  return located;
}
