import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { AllowList, DEFAULT_OUTBOUND, type Resolver } from '../../src/webhooks/allow.js';
import { generateSecret, secretProblem, signatureHeaders } from '../../src/webhooks/sign.js';

/** The specification's algorithm written out with node:crypto, independent of the library that signs. */
const byHand = (secret: string, id: string, timestamp: string, body: string): string =>
  'v1,' +
  createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');

describe('Standard Webhooks signing', () => {
  it('matches the example the specification publishes', () => {
    // The worked example of the Standard Webhooks / Svix documentation.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = signatureHeaders(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330_000, '{"test": 2432232314}');
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('signs what a receiver verifies, with the library and by hand', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: 'order.created', data: { id: 7, note: 'ünïcode ✓' } });
    const headers = signatureHeaders(secret, 'msg_abc', Date.now(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
    expect(headers['webhook-signature']).toBe(byHand(secret, 'msg_abc', headers['webhook-timestamp'], body));
    // The timestamp is whole seconds, and a body changed by one byte no longer verifies.
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(() => new Webhook(secret).verify(body.replace('7', '8'), { ...headers })).toThrow(/signature/i);
  });

  it('makes secrets of 24 random bytes and refuses ones that cannot sign', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(generateSecret()).not.toBe(secret);
    expect(secretProblem(secret)).toBeUndefined();
    expect(secretProblem('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeUndefined();
    expect(secretProblem('whsec_not base64!')).toMatch(/base64/);
    expect(secretProblem('whsec_c2hvcnQ=')).toMatch(/shorter than 16 bytes/);
  });
});

const resolving =
  (table: Record<string, string[]>): Resolver =>
  (host) => {
    const found = table[host];
    if (found === undefined) return Promise.reject(new Error(`getaddrinfo ENOTFOUND ${host}`));
    return Promise.resolve(found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };

describe('the outbound allow-list', () => {
  const loopbackOnly = new AllowList(DEFAULT_OUTBOUND);
  const none = resolving({});

  it.each([
    ['http://127.0.0.1:9/hook', '127.0.0.1'],
    ['http://127.8.9.10/', '127.8.9.10'],
    ['https://[::1]:8443/x', '::1'],
    ['http://[::ffff:127.0.0.1]/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
  ])('allows the loopback address in %s', async (url, address) => {
    expect(await loopbackOnly.check(url, none)).toMatchObject({ kind: 'allowed', address });
  });

  it.each([
    ['http://10.1.2.3/', /10\.1\.2\.3 is not in outbound\.allow/],
    ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
    ['http://0.0.0.0:8080/', /0\.0\.0\.0/],
    ['http://[::ffff:10.1.2.3]/', /not in outbound\.allow/],
    ['http://[fd00::1]/', /fd00::1/],
    ['file:///etc/passwd', /only http and https/],
    ['gopher://127.0.0.1/', /only http and https/],
    ['not a url', /not a URL/],
  ])('refuses %s', async (url, reason) => {
    const verdict = await loopbackOnly.check(url, none);
    expect(verdict.kind).toBe('refused');
    expect(verdict.kind === 'refused' && verdict.reason).toMatch(reason);
  });

  it('allows a name only when every address it resolves to is allowed', async () => {
    const dns = resolving({ 'hooks.local.test': ['127.0.0.1', '::1'], 'mixed.test': ['127.0.0.1', '10.1.2.3'], localhost: ['127.0.0.1'] });
    expect(await loopbackOnly.check('http://hooks.local.test:4000/x', dns)).toMatchObject({ kind: 'allowed', address: '127.0.0.1' });
    expect(await loopbackOnly.check('http://mixed.test/', dns)).toMatchObject({
      kind: 'refused',
      reason: expect.stringMatching(/10\.1\.2\.3/),
    });
    expect(await loopbackOnly.check('http://localhost/', dns)).toMatchObject({ kind: 'allowed' });
    // A name that does not resolve is not refused: DNS may answer later, so it is a failure to retry.
    expect(await loopbackOnly.check('http://gone.test/', dns)).toMatchObject({
      kind: 'unresolved',
      reason: expect.stringMatching(/ENOTFOUND/),
    });
  });

  it('takes CIDRs, addresses, names and *.domains from the configuration', async () => {
    const list = new AllowList({ allow: ['10.0.0.0/8', 'fd00::/8', 'hooks.example.test', '*.partner.test'] });
    const dns = resolving({ 'hooks.example.test': ['192.0.2.10'], 'a.partner.test': ['192.0.2.11'], 'partner.test': ['192.0.2.12'] });
    expect(await list.check('http://10.200.0.1/', dns)).toMatchObject({ kind: 'allowed' });
    expect(await list.check('http://[fd12::5]/', dns)).toMatchObject({ kind: 'allowed' });
    expect(await list.check('http://127.0.0.1/', dns)).toMatchObject({ kind: 'refused' });
    expect(await list.check('https://HOOKS.example.test/', dns)).toMatchObject({ kind: 'allowed', address: '192.0.2.10' });
    expect(await list.check('https://a.partner.test/', dns)).toMatchObject({ kind: 'allowed', address: '192.0.2.11' });
    expect(await list.check('https://partner.test/', dns)).toMatchObject({ kind: 'refused' });
  });

  it.each(['10.0.0.0/33', '10.0.0.0/', '10.0.0.0/8/1', 'http://x', 'bad_name', '::1/200'])(
    'says at start that "%s" is no entry',
    (entry) => {
      expect(() => new AllowList({ allow: [entry] })).toThrow(/outbound\.allow/);
    },
  );
});
