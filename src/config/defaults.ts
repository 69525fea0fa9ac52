import { fileURLToPath } from 'node:url';
import type { SandboxConfig } from './config.js';

/** The package root, whether running from `src/` or the built `dist/`. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The defaults: the Pet Store document with its demo keys, the seed's plan table. */
export const DEFAULT_CONFIG: SandboxConfig = {
  spec: `${PACKAGE_ROOT}openapi/petstore.yaml`,
  fixtures: `${PACKAGE_ROOT}fixtures/petstore.yaml`,
  data: null,
  snapshot: null,
  fsync: 'everysec',
  host: '127.0.0.1',
  port: 4010,
  basePath: null,
  seed: 1,
  adminToken: null,
  bodyLimit: 1024 * 1024,
  clock: { frozenAt: null },
  plans: {
    free: { perMinute: 60, perDay: 1_000 },
    pro: { perMinute: 300, perDay: 10_000 },
    business: { perMinute: 1_000, perDay: 100_000 },
    enterprise: { perMinute: 5_000, perDay: 1_000_000 },
  },
  keys: [
    { key: 'demo-free', name: 'demo-free', plan: 'free' },
    { key: 'demo-pro', name: 'demo-pro', plan: 'pro' },
    { key: 'demo-business', name: 'demo-business', plan: 'business' },
    { key: 'demo-enterprise', name: 'demo-enterprise', plan: 'enterprise' },
  ],
  anonymousPlan: 'free',
  bans: { threshold: 20, durationSeconds: 600 },
  validation: { unknownQueryParameters: 'ignore', checkResponses: false, serveInvalidExamples: false },
  cors: { origins: ['*'] },
  log: { level: 'info', format: 'auto' },
  // None for a library user; the CLI's config loader finds one (load-config.ts, cacheDirFrom).
  cacheDir: null,
  journalSize: 1000,
  maxWorkspaces: 1000,
  workspaceIdleSeconds: 300,
  faults: { allowClientChoice: true, timeoutCapMs: 30_000, maxDelayMs: 30_000, latency: null, faults: [] },
  pages: { docs: '/docs', visitorKeys: true, visitorPlan: null, visitorWorkspaces: 100, visitorKeysPerMinute: 60, console: true },
  redis: { url: null, prefix: 'understudy:', outage: 'local', replicas: 1, commandTimeoutMs: 500 },
  webhooks: {
    allow: ['127.0.0.0/8', '::1', 'localhost'],
    timeoutMs: 5_000,
    maxAttempts: 8,
    backoffSeconds: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000],
    queueLimit: 100,
    subscriptions: [],
    callbackSecret: null,
  },
  transitions: [],
};
