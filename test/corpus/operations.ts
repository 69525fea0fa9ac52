import { deref, isObject, type Json, type JsonObject } from './document.js';

/** The harness's own list of operations, read straight from the (3.x) document. */

export interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly style: string | undefined;
  readonly explode: boolean | undefined;
  /** Where the schema is (for Ajv), and the schema itself (for the generator). */
  readonly schemaAt: readonly string[] | undefined;
  /** `content` instead of `schema` (OpenAPI 3.0 §4.7.12): the media type the value is serialised in. */
  readonly contentType: string | undefined;
}

export interface Media {
  readonly type: string;
  readonly schemaAt: readonly string[] | undefined;
}

export interface SecurityScheme {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
  readonly name?: string;
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly label: string;
  readonly parameters: readonly Parameter[];
  readonly body: { readonly required: boolean; readonly media: readonly Media[] } | undefined;
  /** Declared statuses ('200', '2XX', 'default') and their media types. */
  readonly responses: ReadonlyMap<string, readonly Media[]>;
  /** Alternatives (OR) of requirements (AND), each scheme resolved. [] or [[]]: no credentials. */
  readonly security: readonly (readonly SecurityScheme[])[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);
// OpenAPI 3.0 §4.7.12: header parameters with these names SHALL be ignored.
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

function media(doc: JsonObject, content: Json | undefined, at: readonly string[]): Media[] {
  if (!isObject(content)) return [];
  return Object.entries(content).map(([type, entry]) => {
    const schema = isObject(entry) && entry.schema !== undefined ? [...at, type, 'schema'] : undefined;
    return { type, schemaAt: schema && deref(doc, (entry as JsonObject).schema, schema) ? schema : undefined };
  });
}

function parameters(doc: JsonObject, list: Json | undefined, at: readonly string[]): Parameter[] {
  if (!Array.isArray(list)) return [];
  const out: Parameter[] = [];
  list.forEach((item, index) => {
    const found = deref(doc, item, [...at, String(index)]);
    if (!found) return;
    const p = found.value;
    const where = p.in;
    if (typeof p.name !== 'string' || typeof where !== 'string' || !LOCATIONS.has(where)) return;
    if (where === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase())) return;
    const content = isObject(p.content) ? Object.keys(p.content)[0] : undefined;
    const schemaAt =
      p.schema !== undefined ? [...found.at, 'schema'] : content !== undefined ? [...found.at, 'content', content, 'schema'] : undefined;
    out.push({
      name: p.name,
      in: where as Parameter['in'],
      required: where === 'path' || p.required === true,
      style: typeof p.style === 'string' ? p.style : undefined,
      explode: typeof p.explode === 'boolean' ? p.explode : undefined,
      schemaAt,
      contentType: content,
    });
  });
  return out;
}

function security(doc: JsonObject, requirements: Json | undefined): SecurityScheme[][] {
  if (!Array.isArray(requirements)) return [];
  const schemes = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  return requirements.filter(isObject).map((requirement) =>
    Object.keys(requirement).map((name) => {
      const s = deref(doc, schemes[name], ['components', 'securitySchemes', name])?.value ?? {};
      const text = (key: string): string | undefined => (typeof s[key] === 'string' ? s[key] : undefined);
      return { type: text('type') ?? 'unknown', scheme: text('scheme')?.toLowerCase(), in: text('in'), name: text('name') };
    }),
  );
}

export function operationsOf(doc: JsonObject): Operation[] {
  const out: Operation[] = [];
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem, ['paths', path]);
    if (!item) continue;
    const shared = parameters(doc, item.value.parameters, [...item.at, 'parameters']);
    for (const method of METHODS) {
      const found = deref(doc, item.value[method], [...item.at, method]);
      if (!found) continue;
      const op = found.value;
      const own = parameters(doc, op.parameters, [...found.at, 'parameters']);
      // Operation-level parameters override path-level ones of the same name and location.
      const merged = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      const body = deref(doc, op.requestBody, [...found.at, 'requestBody']);
      const responses = new Map<string, Media[]>();
      if (isObject(op.responses)) {
        for (const [status, raw] of Object.entries(op.responses)) {
          const r = deref(doc, raw, [...found.at, 'responses', status]);
          responses.set(
            status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase(),
            r ? media(doc, r.value.content, [...r.at, 'content']) : [],
          );
        }
      }
      out.push({
        method: method.toUpperCase(),
        path,
        label: `${method.toUpperCase()} ${path}`,
        parameters: merged,
        body: body ? { required: body.value.required === true, media: media(doc, body.value.content, [...body.at, 'content']) } : undefined,
        responses,
        security: security(doc, op.security ?? doc.security),
      });
    }
  }
  return out;
}
