import type { ValidateFunction } from 'ajv';
import { errorBody, type ErrorBody, type Violation } from '../vocabulary/errors.js';
import type { BodyRead } from '../vocabulary/exchange.js';
import type { OperationSpec, ParameterSpec } from '../vocabulary/operation.js';
import { schemaAt } from '../openapi/value-kind.js';
import { BodyValidator } from './body-validator.js';
import { claims, gather, sourceOf, type Carriers, type Source } from './parameter-sources.js';
import { firstAccepted, isJsonMedia, parseMembers, parseParameter, readingsOf } from './parse-parameter.js';
import { parseQuerystring, readsQuerystring } from './querystring-parameter.js';
import { PREFERENCE_QUERY } from './parse-query.js';
import { readCookies } from './read-cookies.js';
import type { SchemaCompiler } from './schema-compiler.js';
import { toViolations } from './schema-compiler.js';

/** A request's inputs, parsed and valid against the operation. */
export interface ValidInput {
  readonly path: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, unknown>>;
  /** Cookie parameters (from the `Cookie` header), parsed and valid. */
  readonly cookies?: Readonly<Record<string, unknown>>;
  /** The parsed body, or undefined when the operation takes none or none was sent. */
  readonly body: unknown;
}

export interface RawInput {
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: ReadonlyMap<string, readonly string[]>;
  /** Query values with `+` kept, for `allowReserved` parameters (`parseQuery`); none when absent. */
  readonly queryPlusKept?: ReadonlyMap<string, readonly string[]>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The query string as received (without `?`), for a querystring parameter (OpenAPI 3.2); none: empty. */
  readonly rawQuery?: string;
}

const NO_VALUES: ReadonlyMap<string, readonly string[]> = new Map();

export type Validated = { readonly ok: true; readonly input: ValidInput } | { readonly ok: false; readonly error: ErrorBody };

export interface ValidationOptions {
  /** `reject`: a query parameter the operation does not declare is a violation. */
  readonly unknownQueryParameters: 'ignore' | 'reject';
}

interface CompiledParameter {
  readonly spec: ParameterSpec;
  /** The spec read each way its schema allows (oneOf/anyOf branches of different types): `readingsOf`. */
  readonly readings: readonly ParameterSpec[];
  readonly source: Source;
  readonly validate: ValidateFunction | undefined;
  readonly fallback: { readonly value: unknown } | undefined;
  /** Where its violations are reported: `query.limit`. */
  readonly location: string;
}

type Bucket = 'path' | 'query' | 'header' | 'cookie';

/**
 * Everything needed to judge one operation's requests, compiled once at start-up. Parameters are
 * parsed by their serialization rules and then checked by schema; every violation is collected so
 * the client learns all of them in one round trip.
 */
export class RequestValidator {
  private readonly parameters: readonly CompiledParameter[];
  private readonly body: BodyValidator;
  private readonly queryParameters: readonly CompiledParameter[];

  constructor(
    operation: OperationSpec,
    compiler: SchemaCompiler,
    document: unknown,
    private readonly options: ValidationOptions,
  ) {
    this.parameters = operation.parameters.map((spec) => {
      const schema = schemaAt(document, spec.schemaPointer);
      // A `content` parameter in a media type the sandbox cannot read (XML, say) is taken as sent.
      const readable =
        spec.in === 'querystring'
          ? readsQuerystring(spec.mediaType)
          : spec.mediaType === undefined || isJsonMedia(spec.mediaType) || spec.mediaType.startsWith('text/');
      return {
        spec,
        readings: readingsOf(spec),
        source: sourceOf(spec, operation.parameters),
        validate: spec.schemaPointer && readable ? compiler.compile(spec.schemaPointer) : undefined,
        fallback: schema && 'default' in schema ? { value: schema.default } : undefined,
        location: `${spec.in}.${spec.name}`,
      };
    });
    this.queryParameters = this.parameters.filter((p) => p.spec.in === 'query' || p.spec.in === 'querystring');
    this.body = new BodyValidator(operation.requestBody, compiler, document);
  }

  /** Whether the operation takes a body at all (so the pipeline knows whether to read one). */
  get takesBody(): boolean {
    return this.body.takesBody;
  }

  validate(raw: RawInput, body: BodyRead | undefined): Validated {
    const violations: Violation[] = [];
    const values: Record<Bucket, Record<string, unknown>> = { path: {}, query: {}, header: {}, cookie: {} };
    let cookies: ReadonlyMap<string, readonly string[]> | undefined;
    const carriers: Carriers = {
      path: raw.pathParams,
      query: raw.query,
      queryPlusKept: raw.queryPlusKept ?? NO_VALUES,
      headers: raw.headers,
      rawQuery: raw.rawQuery ?? '',
      cookies: () => (cookies ??= readCookies(raw.headers.cookie)),
    };
    for (const { spec, readings, source, validate, fallback, location } of this.parameters) {
      const sent = gather(spec, source, carriers);
      if (sent.kind === 'nested') {
        violations.push({ location, message: `"${sent.key}" nests deeper than the deepObject style defines` });
        continue;
      }
      const count = sent.kind === 'texts' ? sent.texts.length : sent.kind === 'whole' ? Math.min(sent.text.length, 1) : sent.pairs.length;
      if (count === 0) {
        if (spec.required) violations.push({ location, message: 'is required' });
        else if (fallback) values[spec.in === 'querystring' ? 'query' : spec.in][spec.name] = fallback.value;
        continue;
      }
      // OpenAPI 3.1 §4.8.12.2.1: with allowEmptyValue, `?name=` is a parameter sent without a value.
      if (spec.allowEmptyValue && sent.kind === 'texts' && sent.texts.every((t) => t === '')) continue;
      const parse = (reading: ParameterSpec) =>
        sent.kind === 'texts'
          ? parseParameter(reading, sent.texts)
          : sent.kind === 'whole'
            ? parseQuerystring(reading, sent.text)
            : parseMembers(reading, sent.pairs);
      const parsed = firstAccepted(readings, parse, validate);
      if (!parsed.ok) {
        violations.push({ location: parsed.at === undefined ? location : `${location}.${parsed.at}`, message: parsed.message });
        continue;
      }
      if (validate && !validate(parsed.value)) {
        violations.push(...toViolations(location, validate.errors));
        continue;
      }
      // A querystring parameter's value is read with the query's (it is all of it).
      values[spec.in === 'querystring' ? 'query' : spec.in][spec.name] = parsed.value;
    }
    if (this.options.unknownQueryParameters === 'reject') {
      for (const name of raw.query.keys()) {
        if (PREFERENCE_QUERY.test(name) && !this.queryParameters.some((p) => claims(p.spec, p.source, name))) continue;
        if (!this.queryParameters.some((p) => claims(p.spec, p.source, name)))
          violations.push({ location: `query.${name}`, message: 'is not a parameter of this operation' });
      }
    }
    const parsedBody = this.body.check(raw.headers['content-type'], body, violations);
    if ('error' in parsedBody) return { ok: false, error: parsedBody.error };
    if (violations.length > 0) {
      const names = [...new Set(violations.map((v) => v.location))].join(', ');
      return { ok: false, error: errorBody('validation_failed', `Invalid request: ${names}`, violations) };
    }
    return {
      ok: true,
      input: { path: values.path, query: values.query, headers: values.header, cookies: values.cookie, body: parsedBody.value },
    };
  }
}
