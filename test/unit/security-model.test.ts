import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { buildApiModel } from '../../src/openapi/build-model.js';

const documentWith = (securitySchemes: Record<string, unknown>, security: unknown): unknown => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: { '/a': { get: { operationId: 'getA', security, responses: { '200': { description: 'ok' } } } } },
  components: { securitySchemes },
});

describe('security schemes in the model', () => {
  it('reads every kind of scheme', () => {
    const model = buildApiModel(
      documentWith(
        {
          b: { type: 'http', scheme: 'Bearer' },
          basic: { type: 'http', scheme: 'basic' },
          hoba: { type: 'http', scheme: 'HOBA' },
          c: { type: 'apiKey', in: 'cookie', name: 'sid' },
          h: { type: 'apiKey', in: 'header', name: 'X-Key' },
          o: {
            type: 'oauth2',
            flows: {
              implicit: { authorizationUrl: 'https://a.example/auth', scopes: { a: '' } },
              clientCredentials: { tokenUrl: 'https://a.example/token', scopes: { b: '' } },
              password: { tokenUrl: 'https://a.example/token', scopes: { a: '' } },
            },
          },
          oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://a.example/.well-known/openid-configuration' },
          m: { type: 'mutualTLS' },
          x: { type: 'x-custom' },
        },
        [{ o: ['a', 'b'], h: [] }, {}],
      ),
    );
    expect([...model.securitySchemes.values()]).toEqual([
      { kind: 'bearer', name: 'b' },
      { kind: 'basic', name: 'basic' },
      { kind: 'http', name: 'hoba', scheme: 'HOBA' },
      { kind: 'apiKey', name: 'c', in: 'cookie', parameter: 'sid' },
      { kind: 'apiKey', name: 'h', in: 'header', parameter: 'x-key' },
      { kind: 'oauth2', name: 'o', tokenUrls: ['https://a.example/token'], scopes: ['a', 'b'] },
      { kind: 'openIdConnect', name: 'oidc' },
      { kind: 'unchecked', name: 'm', type: 'mutualTLS' },
      { kind: 'unchecked', name: 'x', type: 'x-custom' },
    ]);
    expect(model.operations[0]?.security).toEqual([
      [
        { scheme: 'o', scopes: ['a', 'b'] },
        { scheme: 'h', scopes: [] },
      ],
      [],
    ]);
    expect(model.warnings).toHaveLength(2);
    expect(model.warnings[0]).toContain('"m" (mutualTLS)');
    expect(model.warnings[1]).toContain('"x" (x-custom)');
  });

  it.each([
    ['an undeclared scheme', {}, [{ nope: [] }], 'requires security scheme "nope"'],
    ['an http scheme without its scheme name', { h: { type: 'http' } }, [{ h: [] }], 'requires security scheme "h"'],
    ['an apiKey without a name', { k: { type: 'apiKey', in: 'header' } }, [{ k: [] }], 'requires security scheme "k"'],
    ['scopes that are not a list', { b: { type: 'http', scheme: 'bearer' } }, [{ b: 'read' }], 'scopes that are not a list'],
    ['a requirement that is not an object', { b: { type: 'http', scheme: 'bearer' } }, ['b'], 'not an object'],
  ])('refuses the start for %s, naming it', (_name, schemes, security, message) => {
    expect(() => buildApiModel(documentWith(schemes, security))).toThrow(message);
  });

  it('starts when a broken scheme is declared but never required', () => {
    expect(buildApiModel(documentWith({ h: { type: 'http' } }, [])).operations).toHaveLength(1);
  });
});

describe('keys in the configuration', () => {
  const withKeys = (keys: unknown): Record<string, unknown> => ({ ...DEFAULT_CONFIG, keys });

  it('accepts today’s keys and the new fields', () => {
    expect(checkConfig(withKeys(DEFAULT_CONFIG.keys)).keys).toEqual(DEFAULT_CONFIG.keys);
    const keys = [{ key: 'k1', plan: 'free', scopes: ['pets:read', 'openid'], username: 'ann', password: 'p:w d' }];
    expect(checkConfig(withKeys(keys)).keys).toEqual(keys);
  });

  it.each([
    [[{ key: 'k1', plan: 'free', scopes: ['two words'] }], 'keys.0.scopes.0'],
    [[{ key: 'k1', plan: 'free', scopes: 'read' }], 'keys.0.scopes'],
    [[{ key: 'k1', plan: 'free', username: 'a:b', password: 'p' }], 'keys.0.username'],
    [[{ key: 'k1', plan: 'free', username: 'ann' }], 'keys.0 must have property password'],
    [[{ key: 'k1', plan: 'free', password: 'p' }], 'keys.0 must have property username'],
    [[{ key: 'k1', plan: 'free', username: 'ann', password: '' }], 'keys.0.password'],
    [
      [
        { key: 'k1', plan: 'free', username: 'ann', password: 'p' },
        { key: 'k2', plan: 'free', username: 'ann', password: 'q' },
      ],
      'keys.1.username is listed twice',
    ],
    [
      [
        { key: 'k1', plan: 'free', name: 'checkout' },
        { key: 'k2', plan: 'free', name: 'checkout' },
      ],
      'keys.1.name is listed twice',
    ],
    [[{ key: 'k1', plan: 'free', name: 'two\nlines' }], 'keys.0.name'],
    [[{ key: 'k1', plan: 'free', name: '' }], 'keys.0.name'],
  ])('refuses %j, naming %s', (keys, field) => {
    expect(() => checkConfig(withKeys(keys))).toThrow(field);
  });
});
