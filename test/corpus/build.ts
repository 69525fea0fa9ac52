import { deref, isObject, type Json, type JsonObject } from './document.js';
import type { SchemaJudge } from './judge.js';
import type { Media, Operation, Parameter } from './operations.js';
import { chooseCredentials, type RequestParts } from './requests.js';
import { generate } from './values.js';

/** A valid request per operation, and near-valid variants that break it in exactly one place. */

export type Built = { readonly kind: 'built'; readonly parts: RequestParts } | { readonly kind: 'unbuildable'; readonly reason: string };

// `*/*` (Swagger 2.0 `consumes: ['*/*']`, as Kubernetes has) takes anything: JSON is sent.
const PREFERRED = [/json/, /^\*\/\*$|^application\/\*$/, /x-www-form-urlencoded/, /multipart\/form-data/, /^text\//, /octet-stream/];

/** A value for the schema at `at` that the harness's own validator accepts: the example first, else synthesised. */
function valueFor(judge: SchemaJudge, at: readonly string[] | undefined): Json | undefined {
  if (at === undefined) return 'corpus';
  const doc = judge.requestDoc;
  const schema = schemaAt(doc, at);
  for (const useExamples of [true, false]) {
    const value = generate(schema, { doc, useExamples });
    if (value !== undefined && judge.valid('request', at, value)) return value;
  }
  return undefined;
}

export function schemaAt(doc: JsonObject, at: readonly string[]): Json | undefined {
  let node: Json | undefined = doc;
  for (const s of at) node = isObject(node) ? node[s] : Array.isArray(node) ? node[Number(s)] : undefined;
  return node;
}

export function buildValid(op: Operation, judge: SchemaJudge): Built {
  const credentials = chooseCredentials(op);
  if (credentials === undefined) return { kind: 'unbuildable', reason: 'no security alternative the harness can present (mutualTLS)' };
  const values = new Map<Parameter, Json>();
  for (const p of op.parameters.filter((q) => q.required)) {
    const value = valueFor(judge, p.schemaAt);
    if (value === undefined) return { kind: 'unbuildable', reason: `no valid value for ${p.in} parameter ${p.name}` };
    values.set(p, value);
  }
  let body: RequestParts['body'];
  if (op.body?.required) {
    const ranked = [...op.body.media].sort((a, b) => rank(a) - rank(b));
    const media = ranked[0];
    if (media === undefined) return { kind: 'unbuildable', reason: 'a required body with no media type' };
    if (rank(media) === PREFERRED.length) return { kind: 'unbuildable', reason: `body media type ${media.type}` };
    const value = valueFor(judge, media.schemaAt);
    if (value === undefined) return { kind: 'unbuildable', reason: `no valid ${media.type} body` };
    body = { media, value };
  }
  return { kind: 'built', parts: { operation: op, values, body, credentials } };
}

function rank(media: Media): number {
  const i = PREFERRED.findIndex((re) => re.test(media.type.toLowerCase()));
  return i === -1 ? PREFERRED.length : i;
}

export type Mutation = 'missing-parameter' | 'wrong-parameter-type' | 'missing-body-property' | 'wrong-body-type';

export interface NearValid {
  readonly mutation: Mutation;
  readonly where: string;
  readonly parts: RequestParts;
}

const WRONG: readonly Json[] = ['not-a-number', 'zz-not-in-enum', '!', ''];

/** Every near-valid variant the operation allows, each checked invalid by the harness's own validator. */
export function nearValid(valid: RequestParts, judge: SchemaJudge): NearValid[] {
  const out: NearValid[] = [];
  const params = [...valid.values.keys()];
  const removable = params.find((p) => p.in !== 'path');
  if (removable) {
    const values = new Map(valid.values);
    values.delete(removable);
    out.push({ mutation: 'missing-parameter', where: `${removable.in}.${removable.name}`, parts: { ...valid, values } });
  }
  for (const p of params) {
    if (p.schemaAt === undefined || p.contentType !== undefined) continue;
    if (isComposite(judge, p)) continue;
    const wrong = WRONG.find((w) => !judge.valid('request', p.schemaAt, w));
    if (wrong === undefined) continue;
    out.push({
      mutation: 'wrong-parameter-type',
      where: `${p.in}.${p.name}`,
      parts: { ...valid, values: new Map(valid.values).set(p, wrong) },
    });
    break;
  }
  const body = valid.body;
  if (body && isObject(body.value) && body.media.schemaAt !== undefined && /json/.test(body.media.type)) {
    const at = body.media.schemaAt;
    const value = body.value;
    const missing = Object.keys(value).find((k) => {
      const { [k]: _gone, ...rest } = value;
      return !judge.valid('request', at, rest);
    });
    if (missing !== undefined) {
      const { [missing]: _gone, ...rest } = value;
      out.push({ mutation: 'missing-body-property', where: `body.${missing}`, parts: { ...valid, body: { ...body, value: rest } } });
    }
    for (const k of Object.keys(value)) {
      const replacement = typeof value[k] === 'string' ? 12345 : 'corpus-wrong-type';
      const changed = { ...value, [k]: replacement };
      if (judge.valid('request', at, changed)) continue;
      out.push({ mutation: 'wrong-body-type', where: `body.${k}`, parts: { ...valid, body: { ...body, value: changed } } });
      break;
    }
  }
  return out;
}

/**
 * A wrong scalar inside a list or an object parameter is ambiguous on the wire (is "a,b" one
 * string or two?), so only scalar parameters get a wrong value.
 */
function isComposite(judge: SchemaJudge, p: Parameter): boolean {
  const schema = p.schemaAt && deref(judge.source.doc, schemaAt(judge.source.doc, p.schemaAt), []);
  const type = schema?.value.type;
  return type === 'array' || type === 'object' || (Array.isArray(type) && (type.includes('array') || type.includes('object')));
}
