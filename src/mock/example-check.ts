import { escapePointerToken, follow, isObject } from '../openapi/json-pointer.js';
import type { ApiModel } from '../vocabulary/operation.js';
import { compilerFor } from '../schemas/document-schemas.js';
import { toViolations } from '../validation/schema-compiler.js';

/**
 * Every example in the document checked against its own schema, once, at start-up: media
 * `example`/`examples` (OpenAPI 3.1 §4.8.14) and schema `example`/`examples` (the ones generation
 * draws from). An example that breaks its schema is reported with its JSON pointer and never
 * served (a generated valid value is served instead), unless `validation.serveInvalidExamples`.
 * The pointer names the user's file (`model.locate`): for a Swagger 2.0 document, the 2.0 original.
 */
export function exampleWarnings(model: ApiModel): string[] {
  const { document } = model;
  const warnings = new Map<string, string>();
  const check = (examplePointer: string, value: unknown, schemaPointer: string): void => {
    if (warnings.has(examplePointer)) return;
    let validate;
    try {
      validate = compilerFor(document).compile(schemaPointer);
    } catch {
      return; // A schema that does not compile is reported by validation, not here.
    }
    if (validate(value)) return;
    const why = toViolations('example', validate.errors)
      .map((v) => `${v.location} ${v.message}`)
      .join('; ');
    warnings.set(examplePointer, `${model.locate(examplePointer)}: the example breaks its schema (${why}); it is not served`);
  };
  const seenSchemas = new Set<string>();
  const walkSchema = (pointer: string, depth: number): void => {
    const { value, pointer: at } = follow(document, pointer);
    if (!isObject(value) || seenSchemas.has(at) || depth > 32) return;
    seenSchemas.add(at);
    if (value.example !== undefined) check(`${at}/example`, value.example, at);
    if (Array.isArray(value.examples)) value.examples.forEach((ex, i) => check(`${at}/examples/${i}`, ex, at));
    for (const key of ['items', 'additionalProperties', 'not'] as const) if (isObject(value[key])) walkSchema(`${at}/${key}`, depth + 1);
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      if (Array.isArray(value[key])) value[key].forEach((_, i) => walkSchema(`${at}/${key}/${i}`, depth + 1));
    }
    if (isObject(value.properties)) {
      for (const name of Object.keys(value.properties)) walkSchema(`${at}/properties/${escapePointerToken(name)}`, depth + 1);
    }
  };
  for (const op of model.operations) {
    const media = [...(op.requestBody?.content ?? []), ...op.responses.flatMap((r) => r.content)];
    for (const { schemaPointer } of media) {
      if (schemaPointer === undefined) continue;
      const mediaPointer = schemaPointer.replace(/\/schema$/, '');
      const object = follow(document, mediaPointer).value;
      if (isObject(object)) {
        if (object.example !== undefined) check(`${mediaPointer}/example`, object.example, schemaPointer);
        for (const name of isObject(object.examples) ? Object.keys(object.examples) : []) {
          const ex = follow(document, `${mediaPointer}/examples/${escapePointerToken(name)}`);
          if (isObject(ex.value) && ex.value.value !== undefined) check(`${ex.pointer}/value`, ex.value.value, schemaPointer);
        }
      }
      walkSchema(schemaPointer, 0);
    }
  }
  return [...warnings.values()];
}
