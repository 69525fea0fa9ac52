import type { Violation } from '../vocabulary/errors.js';
import type { BodyField } from './body-fields.js';
import { addMember, newMembers, readMembers, splitKey, type Members } from './form-members.js';
import { firstAccepted, parseParameter, readingsOf } from './parse-parameter.js';

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
  const parsed = firstAccepted(readingsOf(field.parameter), (reading) => parseParameter(reading, texts), field.accepts);
  if (parsed.ok) return parsed.value;
  violations.push({ location, message: parsed.message });
  return texts.length === 1 ? texts[0] : texts;
}

/**
 * An `application/x-www-form-urlencoded` body (WHATWG URL §5: `+` is a space, percent-escapes are
 * UTF-8) as an object whose values are typed by the schema: `count=3` is the integer 3. A field is
 * read by its Encoding Object (OpenAPI 3.1 §4.8.15): JSON for a JSON `contentType`, else by its
 * `style` and `explode` as a query parameter is; a key with brackets (`metadata[plan]=pro`,
 * `items[0][price]=p_1`, `expand[]=a`) is a member of its field, read to any depth against the
 * schema (form-members.ts), unless the schema declares that very name. The object is built from
 * entries, so a field named `__proto__` is plain data.
 */
export function decodeForm(text: string, fields: ReadonlyMap<string, BodyField>, document?: unknown): Decoded {
  const texts = new Map<string, string[]>();
  const members = new Map<string, Members>();
  for (const [name, value] of new URLSearchParams(text)) {
    const split = fields.has(name) ? undefined : splitKey(name);
    if (split) {
      const [field, path] = split;
      let tree = members.get(field);
      if (!tree) members.set(field, (tree = newMembers()));
      addMember(tree, path, value);
      continue;
    }
    const list = texts.get(name);
    if (list) list.push(value);
    else texts.set(name, [value]);
  }
  const violations: Violation[] = [];
  const entries: [string, unknown][] = [];
  for (const [name, values] of texts) {
    const tree = members.get(name);
    if (tree) {
      // `a=1&a[b]=2`: both a value and members; the members are read, the value is refused.
      violations.push({ location: `body.${name}`, message: 'is given both as a value and with members' });
      continue;
    }
    entries.push([name, readField(fields.get(name), values, `body.${name}`, violations)]);
  }
  for (const [name, tree] of members) {
    entries.push([name, readMembers(document, fields.get(name)?.parameter.schemaPointer, tree, `body.${name}`, violations)]);
  }
  return { value: Object.fromEntries(entries), violations };
}
