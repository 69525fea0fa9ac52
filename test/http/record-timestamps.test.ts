import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox } from '../../src/core/sandbox.js';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, START } from '../support/sandbox.js';

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };
const at = (seconds: number): string => new Date(Date.parse(START) + seconds * 1000).toISOString();

/** A collection whose records carry server-kept timestamps. */
const DOCUMENT = `openapi: 3.1.0
info: { title: Notes, version: '1' }
servers: [{ url: /api }]
security: [{ key: [] }]
components:
  securitySchemes:
    key: { type: http, scheme: bearer }
  schemas:
    NewNote:
      type: object
      required: [text]
      properties:
        text: { type: string }
    Note:
      allOf:
        - $ref: '#/components/schemas/NewNote'
        - type: object
          required: [id, createdAt, updated_at]
          properties:
            id: { type: integer, readOnly: true }
            createdAt: { type: string, format: date-time, readOnly: true }
            updated_at: { type: string, format: date-time, readOnly: true }
            dueAt: { type: string, format: date-time }
paths:
  /notes:
    post:
      operationId: createNote
      requestBody:
        required: true
        content: { application/json: { schema: { $ref: '#/components/schemas/NewNote' } } }
      responses:
        '201': { description: Created., content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
  /notes/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: integer } }]
    get:
      operationId: getNote
      responses:
        '200': { description: The note., content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
        '404': { description: No such note. }
    patch:
      operationId: updateNote
      requestBody:
        required: true
        content: { application/merge-patch+json: { schema: { $ref: '#/components/schemas/NewNote' } } }
      responses:
        '200': { description: The note., content: { application/json: { schema: { $ref: '#/components/schemas/Note' } } } }
        '404': { description: No such note. }
`;

describe('record timestamps read the workspace’s clock', () => {
  let dir: string;
  let spec: string;
  let app: ReturnType<typeof createNodeHandler>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'timestamps-'));
    spec = join(dir, 'notes.yaml');
    await writeFile(spec, DOCUMENT);
  });
  beforeEach(async () => {
    const config = checkConfig({
      ...DEFAULT_CONFIG,
      spec,
      fixtures: null,
      adminToken: ADMIN_TOKEN,
      log: { level: 'silent', format: 'json' },
      clock: { frozenAt: START },
      validation: { unknownQueryParameters: 'ignore', checkResponses: true },
    });
    app = createNodeHandler(await createSandbox(config));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('sets createdAt and updated_at on create, updated_at alone on a patch, from the sandbox clock', async () => {
    const created = await request(app).post('/api/notes').set(auth()).send({ text: 'hello' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ text: 'hello', createdAt: at(0), updated_at: at(0) });
    await request(app).post('/__sandbox/clock').set(admin).send({ advanceSeconds: 3600 }).expect(200);
    const patched = await request(app)
      .patch(`/api/notes/${created.body.id}`)
      .set(auth())
      .set('content-type', 'application/merge-patch+json')
      .send({ text: 'later' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ text: 'later', createdAt: at(0), updated_at: at(3600) });
  });

  it('stamps with the workspace’s own clock when it was moved on its own', async () => {
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro' });
    const { key, workspace } = issued.body as { key: string; workspace: string };
    await request(app).post(`/__sandbox/workspaces/${workspace}/clock`).set(admin).send({ advanceSeconds: 86_400 }).expect(200);
    const created = await request(app).post('/api/notes').set(auth(key)).send({ text: 'tomorrow' });
    expect(created.status).toBe(201);
    expect((created.body as { createdAt: string }).createdAt).toBe(at(86_400));
    const inDefault = await request(app).post('/api/notes').set(auth()).send({ text: 'today' });
    expect((inDefault.body as { createdAt: string }).createdAt).toBe(at(0));
  });
});
