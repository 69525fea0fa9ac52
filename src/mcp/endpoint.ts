import { ADMIN_PREFIX } from '../admin/admin-surface.js';
import { answerHeaders } from '../answers/answer-headers.js';
import type { ErrorBody } from '../vocabulary/errors.js';
import type { SandboxRequest, SandboxResponse } from '../vocabulary/exchange.js';
import type { HandlingSandbox } from './in-process.js';
import type { ServedApi } from './target.js';

/** Where the MCP endpoint is: under the admin prefix, behind the admin token. */
export const MCP_PATH = `${ADMIN_PREFIX}/mcp`;

/** What the door needs of a sandbox: its front door for the tools' requests, and the API it serves now. */
export interface DoorSandbox extends HandlingSandbox {
  generation(): ServedApi & { readonly label: string };
}

export interface DoorSettings {
  readonly adminToken: string;
  /** Where parsed YAML is cached (the admin document is YAML), or null. */
  readonly cacheDir: string | null;
  /** Told of a failure of the MCP server itself (a bug): the client gets a 500 in the Error shape. */
  readonly fail: (error: unknown) => void;
}

/** An answer of the door's own, in the Error shape with the standard headers. */
export function doorError(req: SandboxRequest, label: string, body: ErrorBody, own: Record<string, string> = {}): SandboxResponse {
  return { status: body.status, headers: answerHeaders({ own, requestId: req.id, generation: label, hasBody: true }), body };
}
