import type { ParameterSpec, ValueKind } from '../vocabulary/operation.js';

export type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

// Canonical decimal text only: no sign on zero, no leading zeros, no exponent, no hex, no blanks.
// Deliberately stricter than type coercion, which takes `1e3`, ` 1` or `0x10` for numbers.
const INTEGER = /^(0|-?[1-9][0-9]*)$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function parseScalar(text: string, kind: ValueKind): Parsed {
  switch (kind) {
    case 'integer': {
      if (!INTEGER.test(text)) return { ok: false, message: 'must be an integer' };
      const value = Number(text);
      if (!Number.isSafeInteger(value)) return { ok: false, message: 'must be an integer between -(2^53-1) and 2^53-1' };
      return { ok: true, value };
    }
    case 'number': {
      if (!NUMBER.test(text)) return { ok: false, message: 'must be a number' };
      const value = Number(text);
      return Number.isFinite(value) ? { ok: true, value } : { ok: false, message: 'must be a finite number' };
    }
    case 'boolean':
      if (text === 'true') return { ok: true, value: true };
      if (text === 'false') return { ok: true, value: false };
      return { ok: false, message: 'must be true or false' };
    default:
      return { ok: true, value: text };
  }
}

/**
 * Turns a parameter's text into the JSON value its schema describes, by the OpenAPI serialization
 * rules (OpenAPI 3.1 §4.8.12.4): `form` (query, cookie) and `simple` (path, header) styles, with
 * arrays either exploded (`?tag=a&tag=b`) or comma-separated (`?tag=a,b`).
 *
 * @param values every value received under the parameter's name, in order.
 */
export function parseParameter(spec: ParameterSpec, values: readonly string[]): Parsed {
  if (spec.kind === 'array') {
    const parts = spec.explode && spec.in === 'query' ? values : values.flatMap((v) => v.split(','));
    const items: unknown[] = [];
    for (const part of parts) {
      const item = parseScalar(part, spec.itemKind);
      if (!item.ok) return { ok: false, message: `item ${items.length} ${item.message}` };
      items.push(item.value);
    }
    return { ok: true, value: items };
  }
  if (values.length > 1) return { ok: false, message: 'must be given once' };
  return parseScalar(values[0] ?? '', spec.kind);
}
