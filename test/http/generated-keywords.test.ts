import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/core/sandbox.js';
import { EDGES, testSandbox } from '../support/sandbox.js';

const DOCUMENT = fileURLToPath(new URL('../documents/generated-keywords.yaml', import.meta.url));

/**
 * Generated answers and seeded records satisfy every keyword of their schema at once (the sandbox
 * checks every answer here: `checkResponses` turns a broken one into a 500).
 */
const SCENARIOS: readonly { name: string; path: string; expectBody: (body: unknown) => void }[] = [
  {
    name: 'seeded records: a date-time of 25 characters has an offset; a urn uuid, a short email, milliseconds by pattern',
    path: '/stamps',
    expectBody: (b) => {
      expect((b as unknown[]).length).toBeGreaterThan(0);
      for (const stamp of b as unknown[]) {
        expect(stamp).toMatchObject({
          at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/),
          startedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          ref: expect.stringMatching(/^urn:uuid:[0-9a-f-]{36}$/i),
          contact: expect.stringMatching(/^[^@]{1,10}@[^@]+$/),
        });
        expect((stamp as { contact: string }).contact.length).toBeLessThanOrEqual(12);
      }
    },
  },
  {
    name: 'an enum of objects gives one of its objects; a mixed enum one of its members',
    path: '/layout',
    expectBody: (b) => {
      const { corner, alignment } = b as { corner: unknown; alignment: unknown };
      expect([
        { x: 0, y: 0 },
        { x: 1, y: 1 },
      ]).toContainEqual(corner);
      expect(['left', ['top', 'left'], { custom: true }]).toContainEqual(alignment);
    },
  },
  {
    name: 'a oneOf of overlapping branches is answered in one of them alone',
    path: '/pets/current',
    expectBody: (b) => expect(b).toMatchObject({ petType: expect.any(String) }),
  },
  {
    name: 'a closed object with properties from several places carries only what it allows',
    path: '/notes/current',
    expectBody: (b) => {
      expect(Object.keys(b as object).length).toBeGreaterThanOrEqual(2);
      for (const key of Object.keys(b as object)) expect(['id', 'kind', 'text']).toContain(key);
    },
  },
];

describe.each(EDGES)('generated answers satisfy every keyword through the $name', ({ make }) => {
  let sandbox: Sandbox;
  let app: ReturnType<typeof make>;
  beforeAll(async () => {
    sandbox = await testSandbox({ spec: DOCUMENT, fixtures: null });
    app = make(sandbox);
  });

  it.each(SCENARIOS)('$name', async ({ path, expectBody }) => {
    const res = await request(app).get(`/api${path}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectBody(res.body);
  });
});
