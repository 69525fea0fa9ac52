/** The plain records the core works on. The HTTP edges translate to and from these. */

export type BodyRead =
  | { readonly kind: 'ok'; readonly bytes: Buffer }
  | { readonly kind: 'too-large'; readonly limit: number }
  | { readonly kind: 'invalid'; readonly reason: string };

export interface SandboxRequest {
  readonly id: string;
  /** Upper-case method. */
  readonly method: string;
  /** The path as received, still percent-encoded, without the query. */
  readonly path: string;
  /** The raw query string, without the leading `?` (empty when absent). */
  readonly query: string;
  /** Header names in lower case; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly clientAddress: string;
  /**
   * Set by the edge when the request breaks HTTP itself (RFC 9112: no or several Host headers, an
   * HTTP version other than 1.x, a content coding the sandbox cannot decode); answered after the
   * limiter like any other failure.
   */
  readonly malformed?: { readonly code: 'malformed_request' | 'unsupported_media_type' | 'not_implemented'; readonly message: string };
  /** Reads the body, honouring the size limit. Called at most once, and only when needed. */
  readonly readBody: (limit: number) => Promise<BodyRead>;
}

export interface SandboxResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON value to send, or undefined for no body. */
  readonly body?: unknown;
  /**
   * The body as sent, when it is not `body` written as JSON: XML built from it, text, bytes. Its
   * type is the `content-type` header; `body` still holds the value it stands for, which the
   * response check and the journal read. The edges send it as is.
   */
  readonly encoded?: string | Uint8Array;
}

/** What happened to one request: what logging and the journal hang off. */
export interface Exchange {
  readonly request: SandboxRequest;
  readonly response: SandboxResponse;
  readonly operationId: string | undefined;
  readonly keyId: string | undefined;
  readonly durationMs: number;
  /** Set when the sandbox itself failed (a bug): the answer was a generic 500. */
  readonly error?: unknown;
}

/**
 * A value now, or later. State contracts return this so that a remote store (Redis) can answer
 * asynchronously while the in-memory default answers at once: awaiting an answer that is already
 * there costs a turn of the microtask queue on every request (measured), so callers await only a
 * promise.
 */
export type Awaitable<T> = T | Promise<T>;
