import type { ValidateFunction } from 'ajv';
import { errorBody, type ErrorBody, type Violation } from '../vocabulary/errors.js';
import type { BodyRead } from '../vocabulary/exchange.js';
import type { OperationSpec, ParameterSpec } from '../vocabulary/operation.js';
import { schemaAt } from '../openapi/value-kind.js';
import { BodyValidator } from './body-validator.js';
import { parseParameter } from './parse-parameter.js';
import type { SchemaCompiler } from './schema-compiler.js';
import { toViolations } from './schema-compiler.js';

/** A request's inputs, parsed and valid against the operation. */
export interface ValidInput {
  readonly path: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, unknown>>;
  /** The parsed body, or undefined when the operation takes none or none was sent. */
  readonly body: unknown;
}

export interface RawInput {
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: ReadonlyMap<string, readonly string[]>;
  readonly headers: Readonly<Record<string, string | undefined>>;
}

export type Validated = { readonly ok: true; readonly input: ValidInput } | { readonly ok: false; readonly error: ErrorBody };

export interface ValidationOptions {
  /** `reject`: a query parameter the operation does not declare is a violation. */
  readonly unknownQueryParameters: 'ignore' | 'reject';
}

interface CompiledParameter {
  readonly spec: ParameterSpec;
  readonly validate: ValidateFunction | undefined;
  readonly fallback: { readonly value: unknown } | undefined;
}

/**
 * Everything needed to judge one operation's requests, compiled once at start-up. Parameters are
 * parsed by their serialization rules and then checked by schema; every violation is collected so
 * the client learns all of them in one round trip.
 */
export class RequestValidator {
  private readonly parameters: readonly CompiledParameter[];
  private readonly body: BodyValidator;
  private readonly declaredQuery: ReadonlySet<string>;

  constructor(
    operation: OperationSpec,
    compiler: SchemaCompiler,
    document: unknown,
    private readonly options: ValidationOptions,
  ) {
    this.parameters = operation.parameters
      .filter((p) => p.in !== 'cookie')
      .map((spec) => {
        const schema = schemaAt(document, spec.schemaPointer);
        return {
          spec,
          validate: spec.schemaPointer ? compiler.compile(spec.schemaPointer) : undefined,
          fallback: schema && 'default' in schema ? { value: schema.default } : undefined,
        };
      });
    this.declaredQuery = new Set(operation.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    this.body = new BodyValidator(operation.requestBody, compiler);
  }

  /** Whether the operation takes a body at all (so the pipeline knows whether to read one). */
  get takesBody(): boolean {
    return this.body.takesBody;
  }

  validate(raw: RawInput, body: BodyRead | undefined): Validated {
    const violations: Violation[] = [];
    const values = { path: {} as Record<string, unknown>, query: {} as Record<string, unknown>, header: {} as Record<string, unknown> };
    for (const { spec, validate, fallback } of this.parameters) {
      const location = `${spec.in}.${spec.name}`;
      const texts = this.textsOf(spec, raw);
      if (texts.length === 0) {
        if (spec.required) violations.push({ location, message: 'is required' });
        else if (fallback) values[spec.in === 'header' ? 'header' : (spec.in as 'path' | 'query')][spec.name] = fallback.value;
        continue;
      }
      const parsed = parseParameter(spec, texts);
      if (!parsed.ok) {
        violations.push({ location, message: parsed.message });
        continue;
      }
      if (validate && !validate(parsed.value)) {
        violations.push(...toViolations(location, validate.errors));
        continue;
      }
      values[spec.in === 'header' ? 'header' : (spec.in as 'path' | 'query')][spec.name] = parsed.value;
    }
    if (this.options.unknownQueryParameters === 'reject') {
      for (const name of raw.query.keys()) {
        if (!this.declaredQuery.has(name)) violations.push({ location: `query.${name}`, message: 'is not a parameter of this operation' });
      }
    }
    const parsedBody = this.body.check(raw.headers['content-type'], body, violations);
    if ('error' in parsedBody) return { ok: false, error: parsedBody.error };
    if (violations.length > 0) {
      const names = [...new Set(violations.map((v) => v.location))].join(', ');
      return { ok: false, error: errorBody('validation_failed', `Invalid request: ${names}`, violations) };
    }
    return { ok: true, input: { path: values.path, query: values.query, headers: values.header, body: parsedBody.value } };
  }

  private textsOf(spec: ParameterSpec, raw: RawInput): readonly string[] {
    if (spec.in === 'path') {
      const value = raw.pathParams[spec.name];
      return value === undefined ? [] : [value];
    }
    if (spec.in === 'query') return raw.query.get(spec.name) ?? [];
    const header = raw.headers[spec.name];
    return header === undefined ? [] : [header];
  }
}
