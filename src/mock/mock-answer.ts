import { createHash } from 'node:crypto';
import type { SandboxResponse } from '../vocabulary/exchange.js';
import type { OperationSpec } from '../vocabulary/operation.js';
import { seededFaker } from './seeded-faker.js';
import { fakeFromSchema } from './schema-faker.js';

/**
 * The answer to an operation with no state behind it, from the document: the success response's
 * example first, else a value generated from its schema. The generator is seeded from the sandbox
 * seed and the operation, so the same request always gets the same answer.
 */
export function mockAnswer(document: unknown, op: OperationSpec, seed: number, referenceDate: Date): SandboxResponse {
  const response = op.responses.find((r) => r.status.startsWith('2')) ?? op.responses.find((r) => r.status === 'DEFAULT');
  const status = response && /^\d{3}$/.test(response.status) ? Number(response.status) : 200;
  const media = response?.content.find((m) => m.mediaType.includes('json')) ?? response?.content[0];
  if (!media) return { status, headers: {} };
  if (media.example) return { status, headers: {}, body: media.example.value };
  if (!media.schemaPointer) return { status, headers: {} };
  const opSeed = createHash('sha256').update(`${seed}:${op.id}`).digest().readUInt32BE(0);
  return { status, headers: {}, body: fakeFromSchema(document, media.schemaPointer, seededFaker(opSeed, referenceDate)) };
}
