import { describe, expect, it } from 'vitest';
import { BodyValidator } from '../../src/validation/body-validator.js';
import { SchemaCompiler } from '../../src/validation/schema-compiler.js';
import type { Violation } from '../../src/vocabulary/errors.js';

/** A JSON body whose numbers JSON itself cannot carry back (1e400 parses as Infinity) is refused where they are. */
describe('a JSON body with a number past the double range', () => {
  const document = {
    openapi: '3.0.3',
    components: {
      schemas: {
        Reading: {
          type: 'object',
          properties: {
            value: { type: 'number' },
            series: { type: 'array', items: { type: 'object', properties: { v: { type: 'number' } } } },
          },
        },
      },
    },
  };
  const validator = new BodyValidator(
    { required: true, content: [{ mediaType: 'application/json', schemaPointer: '#/components/schemas/Reading', example: undefined }] },
    new SchemaCompiler(document, '3.0'),
    document,
  );
  const check = (text: string): { result: ReturnType<BodyValidator['check']>; violations: Violation[] } => {
    const violations: Violation[] = [];
    const result = validator.check('application/json', { kind: 'ok', bytes: Buffer.from(text) }, violations);
    return { result, violations };
  };

  // prettier-ignore
  const ROWS: readonly { readonly body: string; readonly locations: readonly string[] }[] = [
    { body: '{"value":1.5,"series":[{"v":2},{"v":-3e300}]}', locations: [] },
    { body: '{"value":1e400}', locations: ['body.value'] },
    { body: '{"value":-1e400}', locations: ['body.value'] },
    { body: '{"series":[{"v":1},{"v":2},{"v":1e999}]}', locations: ['body.series[2].v'] },
    { body: '1e400', locations: ['body'] },
    { body: '"1e400"', locations: [] },
    { body: '[[1,[2,{"x":[3,-1e999]}]]]', locations: ['body[0][1][1].x[1]'] },
    { body: '{"series":[{"v":1}],"value":{"deep":{"deeper":[1e400]}}}', locations: ['body.value.deep.deeper[0]'] },
  ];
  it.each(ROWS)('$body → $locations', ({ body, locations }) => {
    const { result, violations } = check(body);
    expect('value' in result).toBe(true);
    expect(violations.filter((v) => v.message === 'must be a finite number').map((v) => v.location)).toEqual(locations);
  });
});
