import { createHash } from 'node:crypto';
import { followed } from '../schemas/document-schemas.js';
import { missingRequiredHeaders } from '../mock/mock-answer.js';
import { fakeFromSchema } from '../mock/schema-faker.js';
import { seededFaker } from '../mock/seeded-faker.js';
import { isArray, isObject } from '../openapi/json-pointer.js';
import { requiredOf } from '../openapi/required.js';
import { essence } from '../validation/media-type.js';
import { ERRORS, problemType, TITLES, type ErrorCode, type Violation } from '../vocabulary/errors.js';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import {
  closestMember,
  fieldsOf,
  isClosed,
  locationValue,
  looksLikeProblem,
  meanings,
  typesOf,
  violationMeaning,
  type Field,
  type Meaning,
} from './error-fields.js';
import type { AnswerPlan } from './plan.js';

/** One error, as the catalogue states it, with the answer's status and the request it answers. */
interface Facts {
  readonly code: ErrorCode;
  readonly message: string;
  readonly status: number;
  readonly details: readonly Violation[];
  /** The request's path: the occurrence, as RFC 9457's `instance` names it. */
  readonly instance: string;
  /** The refusal as it was made, with any fields of its own. */
  readonly body: Readonly<Record<string, unknown>>;
}

type Generate = (pointer: string) => unknown;

/**
 * The sandbox's refusals in the API's own error shape. Every refusal starts as the catalogue's
 * `{code, message, status, details}`; where the operation declares content for that status (exactly,
 * `4XX`, or `default`) the same facts are written into the document's schema by what each field
 * means (error-fields.ts): the code, the HTTP status (an integer `code` or `statusCode`, a string
 * `status`), the sentence, the violations (each with its field where the item has one), a nested
 * `error` object filled the same way, and required fields with no counterpart generated.
 *
 * Where the document declares `application/problem+json`, or a schema with RFC 9457's members, the
 * body is a problem: `type` (the code's URI), `title`, `status`, `detail`, `instance` (the request's
 * path) and, where the schema lets it, the violations as the `violations` extension member.
 *
 * Where the response declared for the status has no content at all (GitHub's bare `404`), the error
 * is sent with no body, and its code and message travel in `X-Sandbox-Error` (decision 0006). If the
 * document's schema cannot be satisfied, the catalogue's shape is sent and the answer check says why.
 */
export function shapeError(plan: AnswerPlan, response: SandboxResponse, instance: string): SandboxResponse {
  const body = response.body;
  // Only the sandbox's own refusals: a body the document gave (a forced example, a rule's) is sent as it is.
  if (response.status < 400 || !isObject(body) || typeof body.code !== 'string' || !Object.hasOwn(ERRORS, body.code)) return response;
  if (typeof body.message !== 'string') return response;
  const declared = plan.responseFor(response.status);
  if (declared === undefined) return response;
  const document = plan.schemas.document;
  const op = plan.operation;
  // Headers the declared response requires (an `X-Trace` on `4XX`), generated when the error lacks them.
  const extra = missingRequiredHeaders(document, declared, response.headers, () => `${op.id}:${declared.status}`);
  const given = extra === undefined ? response : { ...response, headers: { ...response.headers, ...extra } };
  if (declared.content.length === 0) {
    return { status: response.status, headers: { ...given.headers, 'x-sandbox-error': headerText(`${body.code}: ${body.message}`) } };
  }
  const facts: Facts = {
    code: body.code as ErrorCode,
    message: body.message,
    status: response.status,
    details: isArray(body.details) ? (body.details as Violation[]) : [],
    instance,
    body,
  };
  const media = declared.content.find((m) => m.mediaType.includes('json')) ?? declared.content[0];
  const problemMedia = media !== undefined && essence(media.mediaType) === 'application/problem+json';
  const pointer = media?.schemaPointer;
  if (pointer === undefined) return problemMedia ? { ...given, body: problem(facts, true) } : given;
  const recipe = plan.memo(`error:${pointer}:${response.status}`, () => recipeFor(plan, pointer, response.status, problemMedia));
  // The catalogue's own shape (the Pet Store's Error): the refusal is already in it.
  if (recipe.catalogue && plan.satisfies(pointer, body)) return given;
  // Most refusals fit at once; a value that breaks a field's schema is found field by field, then left out or generated.
  const quick = fill(plan, recipe, pointer, facts, recipe.problem, false);
  if (plan.satisfies(pointer, quick)) return { ...given, body: quick };
  const careful = fill(plan, recipe, pointer, facts, recipe.problem, true);
  return plan.satisfies(pointer, careful) ? { ...given, body: careful } : given;
}

const CATALOGUE_FIELDS = new Set(['code', 'message', 'status', 'details']);

/** What an error schema asks for, worked out on the first refusal answered in it and kept with the operation's plan. */
interface Recipe {
  readonly problem: boolean;
  /** The schema names only the catalogue's own fields (`code`, `message`, `status`, `details`). */
  readonly catalogue: boolean;
  /** A required field's generated value, the same on every refusal (seeded by the schema and the status). */
  readonly generate: Generate;
  readonly fields: (pointer: string) => readonly Field[];
  readonly meanings: (pointer: string, problem: boolean) => ReadonlyMap<string, Meaning>;
  readonly required: (pointer: string) => ReadonlySet<string>;
  readonly closed: (pointer: string) => boolean;
}

function recipeFor(plan: AnswerPlan, pointer: string, status: number, problemMedia: boolean): Recipe {
  const document = plan.schemas.document;
  const seed = createHash('sha256').update(`${pointer}:${status}`).digest().readUInt32BE(0);
  const faker = seededFaker(seed, new Date(0));
  const remember = <T>(make: (at: string) => T): ((at: string) => T) => {
    const known = new Map<string, T>();
    return (at) => {
      if (!known.has(at)) known.set(at, make(at));
      return known.get(at) as T;
    };
  };
  const fields = remember((at) => fieldsOf(document, at));
  const meaningsOf = remember((key) => meanings(fields(key.slice(1)), key.startsWith('p')));
  const problem = problemMedia || looksLikeProblem(fields(pointer));
  return {
    problem,
    catalogue: !problem && fields(pointer).every((f) => CATALOGUE_FIELDS.has(f.name)),
    generate: remember((at) => fakeFromSchema(document, at, faker)),
    fields,
    meanings: (at, problem) => meaningsOf(`${problem ? 'p' : 'o'}${at}`),
    required: remember((at) => requiredOf(document, at)),
    closed: remember((at) => isClosed(document, at)),
  };
}

/** An RFC 9457 problem: its own members, and when `open` the code and the violations as extension members. */
function problem(facts: Facts, open: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: problemType(facts.code),
    title: TITLES[facts.code],
    status: facts.status,
    detail: facts.message,
    instance: facts.instance,
  };
  if (!open) return out;
  out.code = facts.code;
  if (facts.details.length > 0) out.violations = facts.details;
  return out;
}

function fill(
  plan: AnswerPlan,
  recipe: Recipe,
  pointer: string,
  facts: Facts,
  isProblem: boolean,
  careful: boolean,
  depth = 0,
): Record<string, unknown> {
  const fields = recipe.fields(pointer);
  const meaningOf = recipe.meanings(pointer, isProblem);
  const out: Record<string, unknown> = {};
  const filled = new Set<Meaning>();
  for (const field of fields) {
    // A field that means nothing here but the refusal carries by that very name (the admin API's
    // `count`, `nearestMisses`) keeps its value.
    const meaning = meaningOf.get(field.name);
    const own = meaning === undefined && depth === 0 && Object.hasOwn(facts.body, field.name) ? facts.body[field.name] : undefined;
    if (own === undefined && (meaning === undefined || (meaning === 'violations' && facts.details.length === 0))) continue;
    const raw = own ?? (meaning === undefined ? undefined : valueFor(plan, recipe, field, meaning, facts, careful, depth));
    const value = raw === undefined ? undefined : inEnum(coerce(raw, field.schema), field.schema, facts);
    if (value === undefined || (careful && !plan.satisfies(field.pointer, value))) continue;
    out[field.name] = value;
    if (meaning !== undefined) filled.add(meaning);
  }
  const byName = new Map(fields.map((f) => [f.name, f]));
  for (const name of recipe.required(pointer)) {
    const field = byName.get(name);
    if (!Object.hasOwn(out, name) && field !== undefined) out[name] = recipe.generate(field.pointer);
  }
  // A nested error (`{"error": {…}}`) carries the facts: nothing is repeated beside it or inside it.
  if (recipe.closed(pointer) || filled.has('nested') || depth > 0) return out;
  // An open schema also carries what it has no field for: a problem the code and its violations
  // (extension members, RFC 9457 §3.2), any other error the catalogue's own fields it did not say otherwise.
  const extras: Record<string, unknown> = isProblem
    ? { code: facts.code, ...(facts.details.length > 0 && !filled.has('violations') ? { violations: facts.details } : {}) }
    : {
        code: facts.code,
        ...(filled.has('message') ? {} : { message: facts.message }),
        ...(filled.has('status') ? {} : { status: facts.status }),
        ...(facts.details.length > 0 && !filled.has('violations') ? { details: facts.details } : {}),
      };
  for (const [name, value] of Object.entries(extras)) if (!byName.has(name)) out[name] = value;
  return out;
}

function valueFor(
  plan: AnswerPlan,
  recipe: Recipe,
  field: Field,
  meaning: Meaning,
  facts: Facts,
  careful: boolean,
  depth: number,
): unknown {
  switch (meaning) {
    case 'code':
      return facts.code;
    case 'status':
      return facts.status;
    case 'message':
      return facts.message;
    case 'title':
      return TITLES[facts.code];
    case 'type':
      return problemType(facts.code);
    case 'instance':
      return facts.instance;
    case 'violations':
      return violations(plan, recipe, field, facts);
    case 'nested':
      return depth >= 3
        ? undefined
        : fill(plan, recipe, field.pointer, facts, looksLikeProblem(recipe.fields(field.pointer)), careful, depth + 1);
    case 'location':
      return undefined;
  }
}

/** The violations as the items of an `errors`-like array: each item's fields by meaning, or one line each. */
function violations(plan: AnswerPlan, recipe: Recipe, field: Field, facts: Facts): unknown[] {
  const document = plan.schemas.document;
  const items = `${followed(document, field.pointer).pointer}/items`;
  const itemSchema = followed(document, items).value;
  const types = isObject(itemSchema) ? typesOf(itemSchema) : [];
  if (!types.includes('object')) return facts.details.map((v) => (v.location ? `${v.location}: ${v.message}` : v.message));
  const fields = recipe.fields(items);
  const required = new Set(recipe.required(items));
  return facts.details.map((violation) => {
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      const meaning = violationMeaning(f);
      const raw =
        meaning === 'location'
          ? locationValue(violation, typesOf(f.schema))
          : meaning === 'message'
            ? violation.message
            : meaning === 'code'
              ? facts.code
              : meaning === 'status'
                ? facts.status
                : undefined;
      const value = raw === undefined ? undefined : coerce(raw, f.schema);
      if (value !== undefined && plan.satisfies(f.pointer, value)) out[f.name] = value;
      else if (required.has(f.name)) out[f.name] = recipe.generate(f.pointer);
    }
    return out;
  });
}

/** A string for a field with a string enum: itself when a member, else the member closest to the error's code and title. */
function inEnum(value: unknown, schema: Readonly<Record<string, unknown>>, facts: Facts): unknown {
  if (typeof value !== 'string' || !isArray(schema.enum) || schema.enum.includes(value)) return value;
  return closestMember(schema.enum, [facts.code, TITLES[facts.code]]) ?? value;
}

/** The value in the JSON type the schema asks for, when one reading of it fits. */
function coerce(raw: unknown, schema: Readonly<Record<string, unknown>>): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return raw;
  const kind = typeof raw === 'number' ? (Number.isInteger(raw) ? 'integer' : 'number') : isArray(raw) ? 'array' : typeof raw;
  if (types.includes(kind) || (kind === 'integer' && types.includes('number'))) return raw;
  if (types.includes('string') && (typeof raw === 'number' || typeof raw === 'boolean')) return String(raw);
  if ((types.includes('integer') || types.includes('number')) && typeof raw === 'string' && /^\d+$/.test(raw)) return Number(raw);
  if (types.includes('string') && isArray(raw))
    return raw.map((d) => (isObject(d) ? `${String(d.location)}: ${String(d.message)}` : String(d))).join('; ');
  if (types.includes('array') && !isArray(raw)) return [raw];
  return undefined;
}

/** Longest `X-Sandbox-Error` value sent. */
const HEADER_TEXT_LIMIT = 300;

/** Text safe in a header field: visible ASCII and spaces only (RFC 9110 §5.5), bounded. */
function headerText(text: string): string {
  const safe = text.replace(/[^\x20-\x7e]/g, '?');
  return safe.length > HEADER_TEXT_LIMIT ? `${safe.slice(0, HEADER_TEXT_LIMIT - 3)}...` : safe;
}
