import type { ValidateFunction } from 'ajv';
import { errorBody, type ErrorBody, type Violation } from '../vocabulary/errors.js';
import type { BodyRead } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { matchMediaType } from './media-type.js';
import type { SchemaCompiler } from './schema-compiler.js';
import { toViolations } from './schema-compiler.js';

/** A request body judged by the operation's declared media types and their schemas, compiled once. */
export class BodyValidator {
  private readonly bodies: ReadonlyMap<string, ValidateFunction | undefined>;

  constructor(
    private readonly requestBody: OperationSpec['requestBody'],
    compiler: SchemaCompiler,
  ) {
    this.bodies = new Map(
      (requestBody?.content ?? []).map((m) => [m.mediaType, m.schemaPointer ? compiler.compile(m.schemaPointer) : undefined]),
    );
  }

  /** Whether the operation takes a body at all (so the pipeline knows whether to read one). */
  get takesBody(): boolean {
    return this.requestBody !== undefined;
  }

  /** The body's JSON value, or the error that ends validation at once (415, malformed JSON, ...). */
  check(header: string | undefined, body: BodyRead | undefined, violations: Violation[]): { value: unknown } | { error: ErrorBody } {
    const requestBody = this.requestBody;
    if (!requestBody) return { value: undefined };
    if (body?.kind === 'invalid') return { error: errorBody('malformed_request', `The request body could not be read: ${body.reason}`) };
    const bytes = body?.kind === 'ok' ? body.bytes : undefined;
    if (bytes === undefined || bytes.length === 0) {
      return requestBody.required ? { error: errorBody('body_required', 'A request body is required') } : { value: undefined };
    }
    const match = matchMediaType(header, requestBody.content);
    if (!match.ok) return { error: errorBody('unsupported_media_type', match.message) };
    let value: unknown;
    if (match.json) {
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
      } catch {
        return { error: errorBody('malformed_json', 'The request body is not valid UTF-8') };
      }
      try {
        value = JSON.parse(text);
      } catch (error) {
        // The parser's own message quotes the input; only its position is passed on.
        const at = /position (\d+)/.exec((error as Error).message)?.[1];
        return { error: errorBody('malformed_json', `The request body is not valid JSON${at ? ` (at byte ${at})` : ''}`) };
      }
    } else {
      value = bytes.toString('latin1');
    }
    const infinite = nonFiniteAt(value);
    // JSON.parse reads 1e400 as Infinity, which JSON cannot carry back: refuse it, like an int64
    // past 2^53, rather than store a value that would be answered as null.
    if (infinite !== undefined) violations.push({ location: `body${infinite}`, message: 'must be a finite number' });
    const validate = this.bodies.get(match.media.mediaType);
    if (validate && !validate(value)) violations.push(...toViolations('body', validate.errors));
    return { value };
  }
}

/** Where the first non-finite number in a parsed JSON value is (`.a[2].b`; `` for the root), or undefined. */
function nonFiniteAt(root: unknown): string | undefined {
  // Iterative, so a deeply nested body cannot exhaust the stack.
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return path;
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) stack.push([child, `${path}.${key}`]);
    }
  }
  return undefined;
}
