/**
 * A callback's body: a value generated from the callback's request body schema, with the values
 * the sandbox knows filled in by name, so that the receiver hears about the record the request
 * made or changed rather than about invented ones. Pure: the caller generates the value (from the
 * served document, as mock answers are) and hands it in with the sources.
 */

/**
 * What the caller generates the value with: a value for the schema at `schemaPointer` of the
 * served document, the same for the same `seed`. The wiring implements it over src/mock/'s
 * generator, as src/mock/mock-answer.ts does for answers:
 * `(pointer, seed) => fakeFromSchema(document, pointer, seededFaker(seed, referenceDate))`,
 * retried on another seed until `satisfies(document, pointer, value)`.
 */
export type GenerateCallbackBody = (schemaPointer: string, seed: number) => unknown;

/** Where values are taken from, in this order of preference. Anything but a JSON object is passed over. */
export interface PayloadSources {
  /** The record after the change (StoreChange.after): what the callback is about, as it now is. */
  readonly record?: unknown;
  /** The operation's answer body. */
  readonly response?: unknown;
  /** The request body, as validated. */
  readonly request?: unknown;
}

export type SourceName = keyof PayloadSources;

export interface FilledPayload {
  readonly payload: unknown;
  /** What was filled: the property's path in the payload (`data.status`), the source, and the source's own name for it. */
  readonly filled: readonly { readonly path: string; readonly from: SourceName; readonly as: string }[];
}

export interface FillOptions {
  /**
   * Whether a payload still satisfies the callback's schema. A value is kept only if the payload
   * with it does: a record's `status` of `placed` must not break a callback's `enum: [shipped]`,
   * nor its free text a `format: uuid`. Absent: every value of the right JSON type is kept.
   */
  readonly fits?: (payload: unknown) => boolean;
}

type JsonObject = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value's JSON type, integers apart: a generated integer must not become 2.5. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const SCALARS = new Set(['null', 'boolean', 'integer', 'number', 'string']);

/** Whether `candidate` may stand where `generated` was: the same JSON type (an integer where a number was). */
function sameType(generated: unknown, candidate: unknown): boolean {
  const want = jsonType(generated);
  const got = jsonType(candidate);
  return want === got || (want === 'number' && got === 'integer');
}

/**
 * Whether an array from a source may replace a generated one: only arrays of scalars (arrays of
 * objects are records of their own, left as generated), each item of a type the generated items
 * have. An empty generated array says nothing of its items, and is left.
 */
function fitsArray(generated: readonly unknown[], candidate: readonly unknown[]): boolean {
  if (generated.length === 0 || !generated.every((item) => SCALARS.has(jsonType(item)))) return false;
  return candidate.every((item) => generated.some((g) => sameType(g, item)));
}

/** `userId`, `user_id`, `UserID` and `user-id` are one name here. */
const loose = (name: string): string => name.toLowerCase().replace(/[_-]/g, '');

/**
 * The source's names for `name`, best first: the same name, then the same but for case, then the
 * same but for case and word separators (snake_case, camelCase, kebab-case).
 */
function namesFor(source: JsonObject, name: string): string[] {
  const keys = Object.keys(source);
  const lower = name.toLowerCase();
  const exact = Object.hasOwn(source, name) ? [name] : [];
  const caseless = keys.filter((key) => key !== name && key.toLowerCase() === lower);
  const separated = keys.filter((key) => key.toLowerCase() !== lower && loose(key) === loose(name));
  return [...exact, ...caseless, ...separated];
}

interface Source {
  readonly from: SourceName;
  readonly value: JsonObject;
  /** Where `value` stands in the source: empty for the source itself, `data.` for its `data` object. */
  readonly at: string;
}

interface Candidate {
  readonly from: SourceName;
  readonly as: string;
  readonly value: unknown;
}

/** Every value the sources offer for `name` that may stand where `generated` is, best first. */
function candidates(sources: readonly Source[], name: string, accepts: (candidate: unknown) => boolean): Candidate[] {
  return sources.flatMap(({ from, value, at }) =>
    namesFor(value, name)
      .map((as) => ({ from, as: `${at}${as}`, value: value[as] }))
      .filter((candidate) => accepts(candidate.value)),
  );
}

/** A copy of `object` with the value of its property `name` replaced, in the same order (`__proto__` stays an own property). */
const withProperty = (object: JsonObject, name: string, value: unknown): JsonObject =>
  Object.fromEntries(Object.entries(object).map(([key, old]) => [key, key === name ? value : old]));

/**
 * Fills a generated callback body from the sources, by name. Each top-level property takes the
 * first value the sources offer (the record, then the answer, then the request; in each, the same
 * name, then the same but for case, then for word separators) of the generated value's JSON type;
 * an array of scalars only when its items are of the generated items' types. A property that is an
 * object is filled one level down, its properties taking scalars only, from the sources' objects
 * of its name first, then from the sources themselves: an envelope (`{event, data: {id, status}}`)
 * carries the record's values. Anything deeper is left as generated, and the input is not changed.
 */
export function fillCallbackPayload(generated: unknown, sources: PayloadSources, options: FillOptions = {}): FilledPayload {
  if (!isObject(generated)) return { payload: generated, filled: [] };
  const ordered: Source[] = (['record', 'response', 'request'] as const).flatMap((from) => {
    const value = sources[from];
    return isObject(value) ? [{ from, value, at: '' }] : [];
  });
  const filled: { path: string; from: SourceName; as: string }[] = [];
  let payload: JsonObject = generated;
  /** Tries each candidate in turn; the first the schema still accepts is kept. */
  const fill = (path: string, offered: readonly Candidate[], place: (value: unknown) => JsonObject): void => {
    for (const candidate of offered) {
      const next = place(candidate.value);
      if (options.fits !== undefined && !options.fits(next)) continue;
      payload = next;
      filled.push({ path, from: candidate.from, as: candidate.as });
      return;
    }
  };
  for (const [name, value] of Object.entries(generated)) {
    if (!isObject(value)) {
      const accepts = (c: unknown): boolean =>
        Array.isArray(value) ? Array.isArray(c) && fitsArray(value, c) : SCALARS.has(jsonType(value)) && sameType(value, c);
      fill(name, candidates(ordered, name, accepts), (v) => withProperty(payload, name, v));
      continue;
    }
    const inner: Source[] = [
      ...ordered.flatMap(({ from, value: source }) =>
        namesFor(source, name).flatMap((as) => {
          const nested = source[as];
          return isObject(nested) ? [{ from, value: nested, at: `${as}.` }] : [];
        }),
      ),
      ...ordered,
    ];
    for (const [property, generatedValue] of Object.entries(value)) {
      if (!SCALARS.has(jsonType(generatedValue))) continue;
      const offered = candidates(inner, property, (c) => sameType(generatedValue, c));
      fill(`${name}.${property}`, offered, (v) => {
        const current = payload[name];
        return withProperty(payload, name, withProperty(isObject(current) ? current : value, property, v));
      });
    }
  }
  return { payload, filled };
}
