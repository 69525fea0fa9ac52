import { isObject } from '../openapi/json-pointer.js';
import { compilerFor } from '../schemas/document-schemas.js';
import { toViolations } from '../validation/schema-compiler.js';
import { errorBody, type ErrorBody } from '../vocabulary/errors.js';
import type { Row } from '../vocabulary/record.js';
import { jsonPatch, mergePatch } from './patch.js';
import { asShown, pick, present, repairFields, serverFields } from './records.js';
import type { ResolvedBinding } from './resolve-binding.js';

export type Patched = { readonly ok: true; readonly fields: Record<string, unknown> } | { readonly ok: false; readonly error: ErrorBody };

const refuse = (location: string, message: string): Patched => ({
  ok: false,
  error: errorBody('validation_failed', `Invalid request: ${location}`, [{ location, message }]),
});

/**
 * A PATCH applied to the record as the document shows it. The body is a JSON Patch (RFC 6902) when
 * the operation takes `application/json-patch+json` and the body is an array (a JSON Patch always
 * is; a merge patch on a record never is), else a JSON merge patch (RFC 7396), plain
 * `application/json` included. Only writable fields change; a result that breaks the record's
 * schema (a required field removed) is refused with a 400 naming why, and nothing is stored.
 */
export function applyPatch(document: unknown, binding: ResolvedBinding, row: Row, body: unknown): Patched {
  const current = present(row, binding.idProperty);
  let patched: unknown;
  if (binding.jsonPatch && Array.isArray(body)) {
    const outcome = jsonPatch(current, body);
    if (!outcome.ok) return refuse(`body[${outcome.at}]`, outcome.message);
    patched = outcome.value;
  } else patched = mergePatch(current, body);
  if (!isObject(patched)) return refuse('body', 'must leave the record an object');
  const fields = { ...serverFields(row, binding.writable), ...pick(patched, binding.writable) };
  if (binding.recordPointer === undefined) return { ok: true, fields };
  const validate = compilerFor(document).compile(binding.recordPointer);
  const id = current[binding.idProperty];
  if (validate({ ...asShown(fields), [binding.idProperty]: id })) return { ok: true, fields };
  // A field the request types otherwise than the record (a webhook's `config` with more members)
  // keeps its stored value; a patch still breaking the record (a required field removed) is refused.
  const sent = isObject(body) ? Object.keys(body) : [];
  if (
    repairFields(document, binding.recordPointer, fields, sent, (name) => current[name]) &&
    validate({ ...fields, [binding.idProperty]: id })
  )
    return { ok: true, fields };
  const violations = toViolations('body', validate.errors);
  return {
    ok: false,
    error: errorBody(
      'validation_failed',
      `The patched record breaks the schema: ${violations.map((v) => v.location).join(', ')}`,
      violations,
    ),
  };
}
