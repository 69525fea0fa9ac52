/** JSON Schema of a merged configuration: a config that fails it stops the start, naming the field. */

/** How Ajv compiles it: every problem reported at once (here, and in the validator the build writes). */
export const CONFIG_AJV_OPTIONS = { allErrors: true, code: { optimize: false } } as const;

const count = { type: 'integer', minimum: 0 } as const;
const plan = {
  type: 'object',
  additionalProperties: false,
  required: ['perMinute', 'perDay'],
  properties: { perMinute: { type: 'integer', minimum: 1 }, perDay: { type: 'integer', minimum: 1 } },
} as const;

export const CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    spec: { type: 'string', minLength: 1 },
    fixtures: { type: ['string', 'null'] },
    data: { type: ['string', 'null'], minLength: 1 },
    snapshot: { type: ['string', 'null'], minLength: 1 },
    fsync: { enum: ['always', 'everysec', 'no'] },
    host: { type: 'string', minLength: 1 },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    basePath: { type: ['string', 'null'], pattern: '^(/[^/]+)*$' },
    seed: { type: 'integer' },
    adminToken: { type: ['string', 'null'], minLength: 8 },
    bodyLimit: { type: 'integer', minimum: 1 },
    clock: { type: 'object', additionalProperties: false, properties: { frozenAt: { type: ['string', 'null'], format: 'date-time' } } },
    plans: { type: 'object', minProperties: 1, additionalProperties: plan },
    keys: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'plan'],
        properties: {
          key: { type: 'string', pattern: '^[A-Za-z0-9._~+/-]+=*$' },
          // Printable, one line: it is shown in a terminal and a page.
          name: { type: 'string', pattern: '^[^\\x00-\\x1F\\x7F]{1,64}$' },
          plan: { type: 'string' },
          // A workspace id: letters, digits, `_` and `-` (it appears in admin paths).
          workspace: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
          // A scope-token (RFC 6749 §3.3): printable ASCII without space, double quote or backslash.
          scopes: { type: 'array', uniqueItems: true, items: { type: 'string', pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$' } },
          // HTTP basic (RFC 7617 §2): no control characters; no colon in the user-id.
          username: { type: 'string', pattern: '^[^:\\x00-\\x1F\\x7F]+$' },
          password: { type: 'string', pattern: '^[^\\x00-\\x1F\\x7F]+$' },
        },
        dependencies: { username: ['password'], password: ['username'] },
      },
    },
    anonymousPlan: { type: 'string' },
    bans: {
      type: 'object',
      additionalProperties: false,
      properties: { threshold: { type: 'integer', minimum: 1 }, durationSeconds: { type: 'integer', minimum: 1 } },
    },
    validation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        unknownQueryParameters: { enum: ['ignore', 'reject'] },
        checkResponses: { type: 'boolean' },
        serveInvalidExamples: { type: 'boolean' },
      },
    },
    cors: { type: 'object', additionalProperties: false, properties: { origins: { type: 'array', items: { type: 'string' } } } },
    log: {
      type: 'object',
      additionalProperties: false,
      properties: { level: { enum: ['silent', 'error', 'warn', 'info', 'debug'] }, format: { enum: ['auto', 'pretty', 'json'] } },
    },
    cacheDir: { type: ['string', 'null'], minLength: 1 },
    journalSize: count,
    maxWorkspaces: { type: 'integer', minimum: 1 },
    workspaceIdleSeconds: count,
    pages: {
      type: 'object',
      additionalProperties: false,
      properties: {
        // A path of its own, outside the admin prefix.
        docs: { type: ['string', 'null'], pattern: '^(?!/__sandbox(/|$))(/[A-Za-z0-9._~-]+)+$' },
        visitorKeys: { type: 'boolean' },
        visitorPlan: { type: ['string', 'null'] },
        visitorWorkspaces: count,
        visitorKeysPerMinute: count,
        console: { type: 'boolean' },
      },
    },
    redis: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: { type: ['string', 'null'], pattern: '^rediss?://' },
        prefix: { type: 'string', pattern: '^[^{}]*$' },
        outage: { enum: ['local', 'open', 'closed'] },
        replicas: { type: 'integer', minimum: 1 },
        commandTimeoutMs: { type: 'integer', minimum: 10 },
      },
    },
    transitions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['collection', 'field', 'from', 'to', 'after'],
        properties: {
          collection: { type: 'string', minLength: 1 },
          field: { type: 'string', minLength: 1 },
          from: { type: 'string' },
          to: { type: 'string' },
          // A duration (`10m`, `2d`) or a number of seconds.
          after: {
            anyOf: [
              { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)?\\s*$' },
              { type: 'number', minimum: 0 },
            ],
          },
        },
      },
    },
    webhooks: {
      type: 'object',
      additionalProperties: false,
      properties: {
        allow: { type: 'array', items: { type: 'string', minLength: 1 } },
        timeoutMs: { type: 'integer', minimum: 1, maximum: 600_000 },
        maxAttempts: { type: 'integer', minimum: 1, maximum: 100 },
        backoffSeconds: { type: 'array', minItems: 1, items: { type: 'number', minimum: 0 } },
        queueLimit: { type: 'integer', minimum: 1 },
        callbackSecret: { type: ['string', 'null'], pattern: '^whsec_' },
        subscriptions: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['event', 'url'],
            properties: {
              event: { type: 'string', minLength: 1 },
              url: { type: 'string', pattern: '^https?://' },
              secret: { type: 'string', pattern: '^whsec_' },
              workspace: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
            },
          },
        },
      },
    },
    faults: {
      type: 'object',
      additionalProperties: false,
      properties: {
        allowClientChoice: { type: 'boolean' },
        timeoutCapMs: { type: 'integer', minimum: 1 },
        maxDelayMs: count,
        // The shapes of these two are read by src/faults, whose errors name the field more precisely than a schema's oneOf.
        latency: { type: ['object', 'null'] },
        faults: { type: 'array' },
      },
    },
  },
} as const;
