import { adminSurface, type AdminSettings } from '../admin/admin-surface.js';
import type { AdminCapabilities } from '../admin/handlers.js';
import type { SandboxConfig } from '../config/config.js';
import { mcpDoor, type DoorSandbox } from '../mcp/door.js';
import type { Surface } from '../pipeline/surface.js';
import type { Notice } from './events.js';
import type { Door } from './front-door.js';

/**
 * The admin API, built (its document read, its validators compiled) on the first request under its
 * prefix, not at start: an admin token costs a start nothing (about 130 ms here), and the first
 * admin request pays it once. Undefined without an admin token.
 */
export function lazyAdmin(config: SandboxConfig, capabilities: AdminCapabilities): (() => Promise<Surface>) | undefined {
  const token = config.adminToken;
  if (token === null) return undefined;
  const settings: AdminSettings = { token, checkResponses: config.validation.checkResponses, cacheDir: config.cacheDir };
  let built: Promise<Surface> | undefined;
  return () => (built ??= adminSurface(settings, capabilities));
}

/**
 * MCP for coding agents (docs/mcp.md), with the admin API and behind its token, as a door: each
 * tool call comes back in through the sandbox's `handle`. Undefined without an admin token.
 */
export function mcpDoorOf(config: SandboxConfig, sandbox: DoorSandbox, notify: (notice: Notice) => void): Door | undefined {
  const adminToken = config.adminToken;
  if (adminToken === null) return undefined;
  const answer = mcpDoor(sandbox, {
    adminToken,
    cacheDir: config.cacheDir,
    fail: (error) => notify({ level: 'error', message: `MCP: ${(error as Error).message}` }),
  });
  return { name: 'mcp', exchanges: false, answer: (req) => answer(req)?.then((plain) => ({ plain })) };
}
