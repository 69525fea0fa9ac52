import type { Violation } from '../vocabulary/errors.js';
import type { BodyField } from './body-fields.js';
import { parseParameter } from './parse-parameter.js';

/** A decoded form or multipart body: the JSON value to validate, and what could not be read into it. */
export interface Decoded {
  readonly value: Readonly<Record<string, unknown>>;
  /** Fields whose text does not read as their type; schema errors at these locations are not repeated. */
  readonly violations: readonly Violation[];
}

/**
 * Turns a field's texts into its JSON value: JSON for a JSON part, else by the property's type and
 * its encoding's `style`/`explode`, like a query parameter (OpenAPI 3.1 §4.8.15, §4.8.12.4).
 * A text that does not read as its type is kept as text, with the reason, so the client learns it.
 */
export function readField(field: BodyField | undefined, texts: readonly string[], location: string, violations: Violation[]): unknown {
  if (!field) return texts.length === 1 ? texts[0] : texts;
  if (field.json) {
    const values: unknown[] = [];
    for (const text of texts) {
      try {
        values.push(JSON.parse(text));
      } catch {
        violations.push({ location, message: 'must be JSON' });
        return text;
      }
    }
    return field.parameter.kind === 'array' && !(values.length === 1 && Array.isArray(values[0])) ? values : values[0];
  }
  const parsed = parseParameter(field.parameter, texts);
  if (parsed.ok) return parsed.value;
  violations.push({ location, message: parsed.message });
  return texts.length === 1 ? texts[0] : texts;
}

/**
 * An `application/x-www-form-urlencoded` body (WHATWG URL §5: `+` is a space, percent-escapes are
 * UTF-8) as an object whose values are typed by the schema: `count=3` is the integer 3.
 * The object is built from entries, so a field named `__proto__` is plain data.
 */
export function decodeForm(text: string, fields: ReadonlyMap<string, BodyField>): Decoded {
  const texts = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const list = texts.get(name);
    if (list) list.push(value);
    else texts.set(name, [value]);
  }
  const violations: Violation[] = [];
  const entries = [...texts].map(([name, values]) => [name, readField(fields.get(name), values, `body.${name}`, violations)] as const);
  return { value: Object.fromEntries(entries), violations };
}
