import { fileURLToPath } from 'node:url';
import type { Sandbox } from '../../src/core/sandbox.js';
import { testSandbox } from './sandbox.js';

/** The document with every kind of security scheme (test/documents/security-schemes.yaml). */
export const SECURITY_DOCUMENT = fileURLToPath(new URL('../documents/security-schemes.yaml', import.meta.url));

/** A reader (scope pets:read only, free plan) and a key with every scope (no `scopes`, pro plan). */
export const SECURITY_KEYS = [
  { key: 'reader-key', plan: 'free', scopes: ['pets:read'], username: 'reader', password: 'reader-pass' },
  { key: 'all-key', plan: 'pro', username: 'alice', password: 'wonder:land' },
];

export const securitySandbox = (overrides: Record<string, unknown> = {}): Promise<Sandbox> =>
  testSandbox({ spec: SECURITY_DOCUMENT, fixtures: null, keys: SECURITY_KEYS, ...overrides });
