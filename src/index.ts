/** The library entry: build a sandbox from a config, then serve it standalone or mount it. */
export type { SandboxConfig } from './config/config.js';
export { DEFAULT_CONFIG } from './config/defaults.js';
export { loadConfig, type ConfigFlags } from './config/load-config.js';
export { createSandbox, type Sandbox } from './core/sandbox.js';
export type { SandboxRequest, SandboxResponse } from './vocabulary/exchange.js';
export { ERRORS, type ErrorCode } from './vocabulary/errors.js';
export { createApp } from './http/express-app.js';
export { createNodeHandler } from './http/node-handler.js';
export { createSandboxServer, drain } from './http/server.js';
