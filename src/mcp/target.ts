import type { ApiModel } from '../vocabulary/operation.js';

/** A request an MCP tool makes of the sandbox: its method, path, raw query, headers and body text. */
export interface PlainRequest {
  /** Upper case. */
  readonly method: string;
  /** Percent-encoded, without the query. */
  readonly path: string;
  /** The raw query string, without the leading `?` (empty for none). */
  readonly query: string;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** The sandbox's answer to it, as a tool shows it. */
export interface PlainAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The body as sent (JSON text for JSON), undefined for none; bytes that are not text, in base64. */
  readonly text: string | undefined;
  readonly base64?: boolean;
  /** A fault on the wire the answer came as instead (a rule's or the config's: docs/control-surface.md), or why no answer came. */
  readonly fault?: string;
}

/** The served API as tools see it: its operation model and the base path it is served under. */
export interface ServedApi {
  readonly model: ApiModel;
  readonly basePath: string;
}

/**
 * The sandbox an MCP server drives: one in this process (`handle`) or one running elsewhere (over
 * HTTP). Either way every tool call is a request through the sandbox's own handling, so it is
 * validated, limited and journaled like any other.
 */
export interface SandboxTarget {
  send(request: PlainRequest): Promise<PlainAnswer>;
  /** The API served now (a reload may have changed it since the last call). */
  api(): Promise<ServedApi>;
  /** The admin token its admin API takes. */
  readonly adminToken: string;
  /** Where the sandbox serves HTTP, when it does: for the server's instructions. */
  readonly origin: string | undefined;
}
