import { writeFileSync } from 'node:fs';

/** Collections in the generated document: four operations each (list, create, read, delete). */
const COLLECTIONS = 2_750;
/** Record schemas the collections share. */
const SCHEMAS = 400;
/** Prose repeated in each operation's description, as real descriptions are long (it sizes the file). */
const PROSE =
  'Returns the records the caller may see, newest first. The answer is paged with a cursor; ' +
  'filters narrow it by field. Rate limits apply per key; see the plan for its windows. ';

/**
 * A large document no public package ships: 11,000 operations and about 20 MB, the size the issue
 * names for "a 20 MB one with 11,000 operations". Deterministic (no randomness), OpenAPI 3.0.3,
 * with shared record schemas, path and query parameters, request bodies and error responses, so
 * every stage of a start (parse, reference check, model, bindings, routes, seeding) has its full load.
 */
export function writeLargeDocument(file: string): void {
  const schemas: Record<string, unknown> = {};
  for (let i = 0; i < SCHEMAS; i++) {
    const properties: Record<string, unknown> = { id: { type: 'integer', format: 'int64', readOnly: true } };
    for (let j = 0; j < 12; j++) {
      properties[`field_${j}`] =
        j % 3 === 0
          ? { type: 'string', maxLength: 200, description: `Field ${j} of record kind ${i}.` }
          : j % 3 === 1
            ? { type: 'integer', minimum: 0, maximum: 1_000_000 }
            : { $ref: `#/components/schemas/Summary${(i + 1) % SCHEMAS}` };
    }
    schemas[`Record${i}`] = { type: 'object', required: ['id', 'field_0'], properties };
    schemas[`Summary${i}`] = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string', maxLength: 80 } } };
  }
  schemas.Error = {
    type: 'object',
    required: ['code', 'message'],
    properties: { code: { type: 'string' }, message: { type: 'string' } },
  };
  const json = (schema: unknown) => ({ 'application/json': { schema } });
  const paths: Record<string, unknown> = {};
  for (let c = 0; c < COLLECTIONS; c++) {
    const record = { $ref: `#/components/schemas/Record${c % SCHEMAS}` };
    const base = `/area${Math.floor(c / 50)}/things${c}`;
    const idParam = { name: 'thingId', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } };
    const errors = { '400': { $ref: '#/components/responses/Problem' }, default: { $ref: '#/components/responses/Problem' } };
    paths[base] = {
      get: {
        operationId: `listThings${c}`,
        tags: [`area${Math.floor(c / 50)}`],
        description: PROSE.repeat(7),
        parameters: [
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 } },
          { name: 'field_0', in: 'query', schema: { type: 'string' }, description: 'Only records with this value.' },
        ],
        responses: { '200': { description: 'A page of records.', content: json({ type: 'array', items: record }) }, ...errors },
      },
      post: {
        operationId: `createThing${c}`,
        description: PROSE.repeat(6),
        requestBody: { required: true, content: json(record) },
        responses: { '201': { description: 'Created.', content: json(record) }, ...errors },
      },
    };
    paths[`${base}/{thingId}`] = {
      parameters: [idParam],
      get: {
        operationId: `getThing${c}`,
        description: PROSE.repeat(5),
        responses: { '200': { description: 'The record.', content: json(record) }, '404': { $ref: '#/components/responses/Problem' } },
      },
      delete: {
        operationId: `deleteThing${c}`,
        description: PROSE.repeat(3),
        responses: { '204': { description: 'Deleted.' }, '404': { $ref: '#/components/responses/Problem' } },
      },
    };
  }
  const document = {
    openapi: '3.0.3',
    info: { title: 'Generated: 11,000 operations', version: '1.0.0' },
    servers: [{ url: '/large' }],
    paths,
    components: {
      schemas,
      responses: { Problem: { description: 'A problem.', content: json({ $ref: '#/components/schemas/Error' }) } },
    },
  };
  writeFileSync(file, JSON.stringify(document, null, 2));
}
