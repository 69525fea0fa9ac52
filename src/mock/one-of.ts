import { isObject } from '../openapi/json-pointer.js';
import { followed, satisfies } from '../schemas/document-schemas.js';
import { flatten, planObject, type ObjectPlan, type Part } from './schema-parts.js';

/**
 * A `oneOf` value must match exactly one branch (JSON Schema 2020-12 core §10.2.1.3). Documents
 * often write `oneOf` where branches overlap (an object branch without `required` matches almost
 * any object), so a value made for one branch may match others too: here it is told apart from
 * them, changing it only as the schemas allow.
 */

/** How many of the `count` branches at `choiceAt` the value matches, counted up to two. */
export function branchesMatched(document: unknown, choiceAt: string, count: number, value: unknown): number {
  let matches = 0;
  for (let j = 0; j < count && matches < 2; j++) if (satisfies(document, `${choiceAt}/oneOf/${j}`, value)) matches++;
  return matches;
}

/**
 * `value`, made for branch `own` (whose schemas, with the parents', are `parts`), changed so that
 * every other branch refuses it and every part still accepts it: a member another branch requires
 * and this one does not is left out, or a member another branch declares is given a value that
 * branch refuses (this branch's own value for it first, else `null` and other plain values).
 * Undefined when no such change is found. `valueFor` generates a value from a property's schema.
 */
export function toldApart(
  document: unknown,
  choiceAt: string,
  count: number,
  own: number,
  parts: readonly Part[],
  value: unknown,
  valueFor: (pointer: string, name: string) => unknown,
): unknown {
  if (!isObject(value)) return undefined;
  const plan = planObject(parts);
  const accepted = (candidate: unknown): boolean => parts.every(({ at }) => satisfies(document, at, candidate));
  let out: Record<string, unknown> = { ...value };
  for (let j = 0; j < count; j++) {
    const pointer = `${choiceAt}/oneOf/${j}`;
    if (j === own || !satisfies(document, pointer, out)) continue;
    const { value: schema, pointer: at } = followed(document, pointer);
    if (!isObject(schema)) return undefined;
    const refuses = (candidate: unknown): boolean => !satisfies(document, pointer, candidate) && accepted(candidate);
    const apart = without(out, planObject(flatten(document, schema, at)), plan, refuses, valueFor);
    if (apart === undefined) return undefined;
    out = apart;
  }
  return branchesMatched(document, choiceAt, count, out) === 1 ? out : undefined;
}

const PLAIN_VALUES: readonly unknown[] = [null, 0, '', false, [], {}];

function without(
  value: Record<string, unknown>,
  other: ObjectPlan,
  plan: ObjectPlan,
  refuses: (candidate: unknown) => boolean,
  valueFor: (pointer: string, name: string) => unknown,
): Record<string, unknown> | undefined {
  for (const name of other.required) {
    if (!Object.hasOwn(value, name) || plan.required.has(name)) continue;
    const candidate = Object.fromEntries(Object.entries(value).filter(([key]) => key !== name));
    if (refuses(candidate)) return candidate;
  }
  for (const name of other.properties.keys()) {
    if (Object.hasOwn(value, name) || !plan.allowed(name)) continue;
    const pointer = plan.properties.get(name)?.[0];
    const candidates = pointer === undefined ? PLAIN_VALUES : [valueFor(pointer, name), ...PLAIN_VALUES];
    for (const member of candidates) {
      const candidate = { ...value, [name]: member };
      if (refuses(candidate)) return candidate;
    }
  }
  return undefined;
}
