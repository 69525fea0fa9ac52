import { join } from 'node:path';
import { _, Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpLike } from 'ajv/dist/types/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isObject, valueAt } from '../openapi/json-pointer.js';
import type { SchemaDialect } from '../openapi/schema-dialect.js';
import type { Violation } from '../vocabulary/errors.js';
import { remembered } from '../vocabulary/remembered.js';
import { FORMATS_MODULE, PATTERN_ENGINE_MODULE, persistedValidators, type PersistedValidators } from './persisted-validators.js';

const DOCUMENT_ID = 'urn:understudy:document';

// Stricter than ajv-formats on purpose: an int64 past 2^53 cannot survive a JSON round trip in
// most clients (JavaScript's among them), so it is rejected rather than silently rounded.
const INT64 = { type: 'number', validate: (n: number) => Number.isSafeInteger(n) } as const;
/** The formats Ajv knows (ajv-formats' full set, and int64), as kept validators' code finds them. */
const FORMATS = { ...fullFormats, int64: INT64 };

const OPTIONS = { allErrors: true, strict: false, validateSchema: false, useDefaults: false, logger: false } as const;
/** What decides a validator's code besides the document and the pointer (a kept one is keyed by it): change it with them. */
const COMPILER = `${DOCUMENT_ID} ${JSON.stringify(OPTIONS)} code.optimize=false patternEngine=1`;

/**
 * Compiles the document's schemas, by JSON pointer, into Ajv validators once at start-up. The
 * document is registered as one schema resource so `$ref`s (circular ones included) resolve inside
 * it. OpenAPI 3.1 schemas are JSON Schema 2020-12; 3.0 schemas, normalised at load
 * (normalize-30.ts), are draft-07. Unknown formats are annotations (OpenAPI 3.1 §4.8.24.1) and are
 * ignored without a warning.
 */
export class SchemaCompiler {
  private instance: Ajv | Ajv2020 | undefined;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly persisted: PersistedValidators | undefined;

  /**
   * `cacheDir`: where validators are kept between starts as code (Ajv's standalone output, in
   * `validators/`), so that a start on a document compiled before runs no Ajv at all: Ajv's
   * construction, its walk of the document and its code generation were most of a small
   * document's compile time, cold (persisted-validators.ts). Null: compiled every time.
   */
  constructor(
    private readonly document: unknown,
    private readonly dialect: SchemaDialect,
    cacheDir: string | null = null,
  ) {
    this.persisted =
      cacheDir === null
        ? undefined
        : persistedValidators(join(cacheDir, 'validators'), document, `${dialect} ${COMPILER}`, {
            [FORMATS_MODULE]: FORMATS,
            [PATTERN_ENGINE_MODULE]: patternEngine,
          });
  }

  /** A validator for the schema at `pointer` (`#/components/schemas/Pet`). */
  compile(pointer: string): ValidateFunction {
    let validate = this.cache.get(pointer);
    if (!validate) {
      const target = referredTo(this.document, pointer);
      validate = target === pointer ? (this.persisted?.load(pointer) ?? this.fresh(pointer)) : this.compile(target);
      this.cache.set(pointer, validate);
    }
    return validate;
  }

  /** Compiled by Ajv now (and kept as code, with a cache directory). */
  private fresh(pointer: string): ValidateFunction {
    const ajv = this.ajv();
    const validate = ajv.compile({ $ref: `${DOCUMENT_ID}${pointer}` });
    // Written as code after the start (a validator Ajv cannot write as code is compiled at every start).
    this.persisted?.keep(pointer, () => standaloneCode.default(ajv, validate));
    return validate;
  }

  /** Ajv with the document registered, made on the first compile (a start that loads every validator makes none). */
  private ajv(): Ajv | Ajv2020 {
    if (this.instance === undefined) {
      const options = {
        ...OPTIONS,
        code: {
          // Ajv's code optimisation passes halve compilation time when off (measured on the Pet
          // Store document); the validators they would trim are already small.
          optimize: false,
          regExp: patternEngine,
          // How kept validators' code reaches the formats (persisted-validators.ts gives them).
          formats: _`require(${FORMATS_MODULE})`,
          source: this.persisted !== undefined,
        },
      };
      const ajv = this.dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options);
      addFormats.default(ajv);
      ajv.addFormat('int64', INT64);
      ajv.addSchema(this.document as object, DOCUMENT_ID);
      this.instance = ajv;
    }
    return this.instance;
  }
}

/**
 * Where a schema that is only a reference (`{ $ref: '#/components/schemas/Error' }`, nothing beside
 * it) leads, followed to the end: the schema a document's shared responses all point at compiles
 * once, not once per response (seven times over in the Pet Store). A reference under a `$id`
 * resolves against that `$id`, not the document, and is left to Ajv.
 */
function referredTo(document: unknown, pointer: string): string {
  let at = pointer;
  for (let hops = 0; hops < 32; hops++) {
    const schema = valueAt(document, at);
    if (!isObject(schema) || typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#/')) return at;
    if (Object.keys(schema).length !== 1 || identifiedOnTheWay(document, at)) return at;
    if (valueAt(document, schema.$ref) === undefined) return at;
    at = schema.$ref;
  }
  return at;
}

/** Whether an object on the way from the document's root to `pointer` has a `$id` (a base of its own). */
function identifiedOnTheWay(document: unknown, pointer: string): boolean {
  const tokens = pointer.slice(2).split('/');
  for (let i = 0; i <= tokens.length; i++) {
    const node = valueAt(document, i === 0 ? '#' : `#/${tokens.slice(0, i).join('/')}`);
    if (isObject(node) && Object.hasOwn(node, '$id')) return true;
  }
  return false;
}

/**
 * How schema `pattern`s are compiled. JSON Schema patterns are ECMA-262 regular expressions
 * (JSON Schema 2020-12 validation §6.3.3, OpenAPI 3.1 §4.8.24), but Ajv compiles them in unicode
 * mode, which refuses what real documents write and plain ECMA-262 accepts (`[\w-.]`, `\_`, `\/`
 * in classes). A pattern unicode mode refuses is compiled without it; one that no mode compiles
 * (a PCRE `(?i)`, say) constrains nothing rather than stopping the start, as unknown formats do.
 */
export const patternEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    try {
      return new RegExp(pattern, flags);
    } catch {
      try {
        return new RegExp(pattern, flags.replace('u', ''));
      } catch {
        return { test: () => true };
      }
    }
  },
  // How kept validators' code reaches it (persisted-validators.ts gives it).
  { code: `require(${JSON.stringify(PATTERN_ENGINE_MODULE)})` },
);

/** Ajv's errors as violations, located under `prefix` (`body`, `query.limit`). */
export function toViolations(prefix: string, errors: readonly ErrorObject[] | null | undefined): Violation[] {
  const seen = new Set<string>();
  const out: Violation[] = [];
  for (const error of errors ?? []) {
    let location = prefix + pointerToPath(error.instancePath);
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      location += `.${String(error.params.missingProperty)}`;
      message = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      location += `.${String(error.params.additionalProperty)}`;
      message = 'is not allowed';
    } else if (error.keyword === 'enum') {
      message = enumMessage(error.params.allowedValues as readonly unknown[]);
    } else if (error.keyword === 'if' || error.keyword === 'allOf') {
      continue;
    }
    const key = `${location}\u0000${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ location, message });
    }
  }
  return out;
}

/** `/items/0/name` as `[0].name`; the same few paths come back request after request. */
const pointerToPath = remembered(1024, (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((token) => (/^(0|[1-9][0-9]*)$/.test(token) ? `[${token}]` : `.${token}`))
    .join(''),
);

/** An enum's message, made once per schema's list of values (Ajv hands over the schema's own array). */
const enumMessages = new WeakMap<readonly unknown[], string>();
function enumMessage(values: readonly unknown[]): string {
  let message = enumMessages.get(values);
  if (message === undefined) enumMessages.set(values, (message = `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`));
  return message;
}
