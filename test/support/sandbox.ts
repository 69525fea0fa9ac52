import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { onTestFinished } from 'vitest';
import type { SandboxConfig } from '../../src/config/config.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';
import { checkConfig } from '../../src/config/load-config.js';
import { createSandbox, type Sandbox } from '../../src/core/sandbox.js';
import { createApp } from '../../src/http/express-app.js';
import { createNodeHandler } from '../../src/http/node-handler.js';

export const ADMIN_TOKEN = 'test-admin-token';
/** Every test starts at this instant on a frozen clock: time moves only when a test moves it. */
export const START = '2026-11-22T10:00:30Z';

type Overrides = {
  [K in keyof SandboxConfig]?: SandboxConfig[K] extends object ? Partial<SandboxConfig[K]> | SandboxConfig[K] : SandboxConfig[K];
};

/** The tests' config: the real Pet Store document, a frozen clock, answers checked against the document. */
export function testConfig(overrides: Overrides = {}): SandboxConfig {
  const base = {
    ...DEFAULT_CONFIG,
    adminToken: ADMIN_TOKEN,
    log: { level: 'silent', format: 'json' },
    clock: { frozenAt: START },
    validation: { unknownQueryParameters: 'ignore', checkResponses: true },
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] =
      value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object'
        ? { ...current, ...value }
        : value;
  }
  return checkConfig(merged);
}

/** The real sandbox on the test config (`testConfig`). */
export async function testSandbox(overrides: Overrides = {}): Promise<Sandbox> {
  return createSandbox(testConfig(overrides));
}

/** The real sandbox on the test config for one test: closed when the test ends (its timers, its deliveries). */
export async function sandboxForTest(overrides: Overrides = {}): Promise<Sandbox> {
  const sandbox = await testSandbox(overrides);
  onTestFinished(() => sandbox.close());
  return sandbox;
}

export type Edge = {
  readonly name: string;
  readonly make: (sandbox: Sandbox) => Express | ((req: IncomingMessage, res: ServerResponse) => void);
};

/** Both HTTP edges: HTTP behaviour tests run against each. */
export const EDGES: readonly Edge[] = [
  { name: 'node:http edge', make: createNodeHandler },
  { name: 'express edge', make: createApp },
];

export const auth = (key = 'demo-enterprise') => ({ Authorization: `Bearer ${key}` });

/**
 * A JSON.stringify replacer that leaves out keys' names (`name` in the key list, `keyName` in the
 * journal): the demo keys are named after their published values, so a check that a key's value
 * appears nowhere looks at everything but its name.
 */
export const withoutNames = (field: string, value: unknown): unknown => (field === 'name' || field === 'keyName' ? undefined : value);
