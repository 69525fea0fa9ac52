import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../src/http/node-handler.js';
import { ADMIN_TOKEN, auth, testSandbox } from '../support/sandbox.js';

/**
 * Keys with names, and a lockout cleared in one call (issue 35): what an admin and a client see.
 * The clock is frozen: a ban lasts until a test clears it.
 */

const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

/** Sends requests with a key until it is banned (60 a minute, then 20 answers of 429). */
async function banned(app: ReturnType<typeof createNodeHandler>, key: string): Promise<request.Response> {
  for (let i = 0; i < 80; i++) await request(app).get('/v1/pets?limit=1').set(auth(key));
  return request(app).get('/v1/pets?limit=1').set(auth(key));
}

describe('named keys', () => {
  it('names the demo keys after themselves, in the key list, the journal and its HAR export', async () => {
    const app = createNodeHandler(await testSandbox());
    const { body } = await request(app).get('/__sandbox/keys').set(admin);
    const names = (body as { keys: { id: string; name?: string }[] }).keys.map((k) => k.name);
    expect(names).toEqual(['demo-free', 'demo-pro', 'demo-business', 'demo-enterprise']);

    await request(app).get('/v1/pets?limit=1').set(auth('demo-pro'));
    const [entry] = (await request(app).get('/__sandbox/requests?limit=1').set(admin)).body as { keyId: string; keyName: string }[];
    expect(entry).toMatchObject({ keyName: 'demo-pro', keyId: expect.stringMatching(/^key_/) as unknown });
    const har = (await request(app).get('/__sandbox/requests.har').set(admin)).body as {
      log: { entries: { _understudy: { keyName?: string } }[] };
    };
    expect(har.log.entries.at(-1)?._understudy.keyName).toBe('demo-pro');
  });

  it('takes a name for a key it issues, finds the key by it, and refuses a name another key has', async () => {
    const app = createNodeHandler(await testSandbox());
    const issued = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'pro', name: 'checkout-tests' });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ name: 'checkout-tests', plan: 'pro' });
    const { key, id } = issued.body as { key: string; id: string };

    const byName = await request(app).get('/__sandbox/keys/checkout-tests').set(admin);
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ id, name: 'checkout-tests', plan: 'pro' });

    await request(app).get('/v1/pets?limit=1').set(auth(key));
    const found = await request(app).get('/__sandbox/requests?key=checkout-tests').set(admin);
    expect((found.body as { keyName: string }[]).map((e) => e.keyName)).toEqual(['checkout-tests']);

    for (const taken of ['checkout-tests', 'demo-free']) {
      const again = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free', name: taken });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ code: 'resource_exists', message: `Another key is named "${taken}"`, status: 409 });
    }
    const unnamed = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free' });
    expect(unnamed.body).not.toHaveProperty('name');
  });

  it('shows a configured key by the name the config gives it, and its value nowhere', async () => {
    const secret = 'sk_live_d0n7_l34k_m3';
    const app = createNodeHandler(await testSandbox({ keys: [{ key: secret, plan: 'pro', name: 'ci-runner' }] }));
    await request(app).get('/v1/pets?limit=1').set(auth(secret));
    const keys = await request(app).get('/__sandbox/keys').set(admin);
    const journal = await request(app).get('/__sandbox/requests').set(admin);
    expect((keys.body as { keys: { name: string }[] }).keys.map((k) => k.name)).toEqual(['ci-runner']);
    expect((journal.body as { keyName: string }[]).map((e) => e.keyName)).toEqual(['ci-runner']);
    expect(JSON.stringify([keys.body, journal.body])).not.toContain(secret);
  });

  it('refuses a name with a control character in it, at its field', async () => {
    const app = createNodeHandler(await testSandbox());
    const res = await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free', name: 'two\nlines' });
    expect(res.status).toBe(400);
    expect((res.body as { details: { location: string }[] }).details.map((d) => d.location)).toEqual(['body.name']);
  });
});

describe('clearing a lockout in one call', () => {
  it('says in the ban how to clear it, and POST /__sandbox/keys/{key}/reset lets the key in at once', async () => {
    const app = createNodeHandler(await testSandbox());
    const id = ((await request(app).get('/__sandbox/keys/demo-free').set(admin)).body as { id: string }).id;
    const refused = await banned(app, 'demo-free');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 'key_banned',
      message: `Banned for repeated requests after 429 responses; retry in 600 s. An admin clears it at once: POST /__sandbox/keys/${id}/reset with the admin token`,
      status: 429,
    });

    // By its value, its id or its name: each clears it.
    for (const named of ['demo-free', id]) {
      const cleared = await request(app).post(`/__sandbox/keys/${named}/reset`).set(admin);
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ id, name: 'demo-free', refusalsThisMinute: 0, bannedUntil: null });
      expect((cleared.body as { windows: { used: number }[] }).windows.map((w) => w.used)).toEqual([0, 0]);
      const again = await request(app).get('/v1/pets?limit=1').set(auth('demo-free'));
      expect(again.status).toBe(200);
      expect(again.headers['x-ratelimit-remaining']).toBe('59');
      await banned(app, 'demo-free');
    }
    const issued = (await request(app).post('/__sandbox/keys').set(admin).send({ plan: 'free', name: 'locked-out' })).body as {
      key: string;
    };
    await banned(app, issued.key);
    expect((await request(app).post('/__sandbox/keys/locked-out/reset').set(admin)).body).toMatchObject({ bannedUntil: null });
    // Only that key: demo-free is still banned.
    expect((await request(app).get('/v1/pets?limit=1').set(auth('demo-free'))).status).toBe(429);
  });

  it('answers 404 for a key nobody has, and 401 without the admin token', async () => {
    const app = createNodeHandler(await testSandbox());
    const missing = await request(app).post('/__sandbox/keys/nobody/reset').set(admin);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'resource_not_found', message: 'No key has this value, id or name', status: 404 });
    expect((await request(app).post('/__sandbox/keys/demo-free/reset')).status).toBe(401);
  });

  it('names the whole reset for a client banned by its address, and a restart when there is no admin API', async () => {
    const withAdmin = createNodeHandler(await testSandbox());
    const anonymous = async (app: ReturnType<typeof createNodeHandler>) => {
      // The token endpoint is public: a client with no key is counted by its address.
      for (let i = 0; i < 80; i++) await request(app).get('/v1/pets?limit=1');
      return (await request(app).get('/v1/pets?limit=1')).body as { message: string };
    };
    expect((await anonymous(withAdmin)).message).toMatch(/An admin clears it at once: POST \/__sandbox\/reset \(the whole sandbox\)/);

    const closed = createNodeHandler(await testSandbox({ adminToken: null }));
    const refused = await banned(closed, 'demo-free');
    expect((refused.body as { message: string }).message).toBe(
      'Banned for repeated requests after 429 responses; retry in 600 s. A restart clears it; so does an admin call when the sandbox runs with an admin token',
    );
  });
});
