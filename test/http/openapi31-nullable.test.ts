import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import { EDGES } from '../support/sandbox.js';

const SPEC = new URL('../documents/openapi31-nullable.yaml', import.meta.url).pathname;

describe('`nullable` in an OpenAPI 3.1 document', () => {
  const warnings: string[] = [];
  let sandbox: Sandbox;
  beforeAll(async () => {
    const config = checkConfig({ ...DEFAULT_CONFIG, spec: SPEC, fixtures: null, log: { level: 'silent', format: 'json' } });
    sandbox = await createSandbox(config, { onProgress: (e) => e.phase === 'warning' && warnings.push(e.message) });
  });

  it('starts, warning at each place it is ignored', () => {
    expect(warnings.filter((w) => w.includes('"nullable"'))).toEqual([
      '#/components/schemas/Note/properties/text: "nullable" is not an OpenAPI 3.1 keyword and is ignored; write "null" into "type" to allow null',
      '#/components/schemas/Note/properties/extra: "nullable" is not an OpenAPI 3.1 keyword and is ignored; write "null" into "type" to allow null',
    ]);
  });

  // prettier-ignore
  it.each([
    { name: 'a body its schema takes', body: { text: 'a', extra: null, nullable: false }, status: 201 },
    { name: 'null where the type says string: 3.1 reads no nullable', body: { text: null }, status: 400, location: 'body.text' },
    { name: 'a property named nullable keeps its schema', body: { text: 'a', nullable: 'yes' }, status: 400, location: 'body.nullable' },
  ])('$name → $status', async ({ body, status, location }) => {
    const res = await request(EDGES[0]!.make(sandbox)).post('/notes').send(body);
    expect(res.status).toBe(status);
    if (location) expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ location }] });
  });
});
