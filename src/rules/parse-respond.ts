import { compilerFor, satisfies } from '../schemas/document-schemas.js';
import { forcedAnswer } from '../mock/forced-answer.js';
import { answerMedia, declaredResponse } from '../openapi/bindings.js';
import { toViolations } from '../validation/schema-compiler.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import type { RuleRespond } from './rule.js';
import type { Problems, RuleInput } from './rule-input.js';

/** Headers a rule may not set: the sandbox frames the answer (RFC 9112 §6), picks its media type and names the request. */
const OWN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'content-type', 'x-request-id']);
/** A field name (RFC 9110 §5.1) and a field value with no line breaks (§5.5). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** At most this many operations are named in one message. */
const NAMED = 3;

/**
 * The answer a rule forces, checked against every operation the rule can match: each must declare
 * the status (exactly, as a `4XX`-style range, or `default`, as `Prefer: code=` reads it), and the
 * example by name when one is given; a body must satisfy the schema of that response (every
 * violation reported under `body.respond.body`), and a response declared with no content takes none.
 */
export function parseRespond(
  given: NonNullable<RuleInput['respond']>,
  candidates: readonly OperationSpec[],
  document: unknown,
  found: Problems,
): RuleRespond | undefined {
  const before = found.list.length;
  const { status, example } = given;
  const hasBody = Object.hasOwn(given, 'body');
  const undeclared = candidates.filter((op) => declaredResponse(op.responses, status) === undefined);
  if (undeclared.length > 0) {
    found.add('respond.status', `is not declared by ${named(undeclared, (op) => `${op.id} (declares ${statuses(op)})`)}`);
  } else if (example !== undefined && hasBody) {
    found.add('respond.body', 'cannot be given with respond.example: the example is the body');
  } else if (example !== undefined) {
    const force = { code: status, example };
    const context = { seed: 1, referenceDate: new Date(0), accept: undefined, serveInvalidExamples: true };
    const lacking = candidates.filter((op) => forcedAnswer(document, op, force, context).kind === 'unsatisfiable');
    if (lacking.length > 0) found.add('respond.example', `is not an example of the ${status} response of ${named(lacking, (op) => op.id)}`);
  } else if (hasBody) checkBody(given.body, status, candidates, document, found);
  const headers = given.headers && parseHeaders(given.headers, found);
  if (found.list.length > before) return undefined;
  return {
    status,
    ...(example !== undefined && { example }),
    ...(hasBody && { body: { value: given.body } }),
    ...(headers && { headers }),
  };
}

function checkBody(body: unknown, status: number, candidates: readonly OperationSpec[], document: unknown, found: Problems): void {
  for (const op of candidates) {
    const response = declaredResponse(op.responses, status);
    if (response === undefined) continue;
    if (response.content.length === 0) {
      found.add('respond.body', `cannot be sent: the ${shown(response.status)} response of ${op.id} declares no content`);
      return;
    }
    const pointer = answerMedia(response)?.schemaPointer;
    if (pointer === undefined || satisfies(document, pointer, body)) continue;
    const validate = compilerFor(document).compile(pointer);
    validate(body);
    const violations = toViolations(`${found.at}.respond.body`, validate.errors);
    const where = `the ${shown(response.status)} response schema of ${op.id}`;
    if (violations.length === 0) found.add('respond.body', `does not satisfy ${where}`);
    for (const v of violations) found.list.push({ location: v.location, message: `${v.message} (${where})` });
    return;
  }
}

function parseHeaders(given: Readonly<Record<string, string>>, found: Problems): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) found.add(`respond.headers.${name}`, 'is not a valid header name');
    else if (OWN_HEADERS.has(lower)) found.add(`respond.headers.${name}`, 'is set by the sandbox, not by rules');
    else if (!FIELD_VALUE.test(value)) found.add(`respond.headers.${name}`, 'must be a header value with no line breaks');
    out[lower] = value;
  }
  return out;
}

const shown = (status: string): string => (status === 'DEFAULT' ? 'default' : status);
const statuses = (op: OperationSpec): string => op.responses.map((r) => shown(r.status)).join(', ') || 'no responses';

function named(ops: readonly OperationSpec[], name: (op: OperationSpec) => string): string {
  const listed = ops.slice(0, NAMED).map(name).join(', ');
  return ops.length > NAMED ? `${listed} and ${ops.length - NAMED} more` : listed;
}
