import type { StoreChange } from './record.js';
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
  /** The path an app mounts the sandbox under (Express's `req.baseUrl`), for URLs a page builds; absent at the root. */
  readonly mountPath?: string;
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
  /** How the edge delivers the answer: after a delay, or as a fault on the wire. Absent: at once, whole. */
  readonly delivery?: Delivery;
  /**
   * An answer that stays open (Server-Sent Events). The edge writes the head without Content-Length,
   * then the body (`encoded`) as the stream's preamble, then calls `open` and writes each chunk it is
   * handed; when the client goes away it calls the function `open` returned.
   */
  readonly stream?: ResponseStream;
}

export interface ResponseStream {
  open(write: (chunk: string) => void): () => void;
}

/** An answer from the respond step, with the store change it made, if any. */
export type Responded = SandboxResponse & { readonly change?: StoreChange };

/** A fault the edge produces on the wire instead of (or while) sending the answer. */
export type Fault =
  /** The connection is reset (TCP RST) without an answer. */
  | { readonly kind: 'connection_reset' }
  /** The connection is closed with no bytes sent. */
  | { readonly kind: 'empty_response' }
  /** A valid status line, then bytes that are not HTTP, then the connection is closed. */
  | { readonly kind: 'malformed_response' }
  /** The head promises a Content-Length longer than the bytes sent, then the connection is closed. */
  | { readonly kind: 'truncated_body' }
  /** No answer at all: the socket stays open until the client gives up or `capMs` passes. */
  | { readonly kind: 'timeout'; readonly capMs: number }
  /** The answer in `chunks` pieces spread over `durationMs`. */
  | { readonly kind: 'dribble'; readonly chunks: number; readonly durationMs: number };

export type FaultKind = Fault['kind'];

export interface Delivery {
  /** Wall-clock milliseconds to wait before the answer (or the fault) starts. */
  readonly delayMs: number;
  readonly fault: Fault | undefined;
}

/** What happened to one request: what logging and the journal hang off. */
export interface Exchange {
  readonly request: SandboxRequest;
  readonly response: SandboxResponse;
  readonly operationId: string | undefined;
  readonly keyId: string | undefined;
  /** The key's name (`demo-free`), when it has one: shown beside the id, never the key itself. */
  readonly keyName?: string | undefined;
  /** The caller's workspace (the default one for requests with no valid key and for the admin API). */
  readonly workspace: string;
  readonly durationMs: number;
  /** Set when the sandbox itself failed (a bug): the answer was a generic 500. */
  readonly error?: unknown;
  /** The request body as read, when the sandbox read one (the operation takes a body). */
  readonly requestBody?: Buffer | undefined;
  /** What shaped the answer beyond the document: a preference, a rule, a delay, a fault. */
  readonly applied?: Applied | undefined;
  /** The store change the request made, when it made one. */
  readonly change?: StoreChange | undefined;
}

/** A request's rate-limit decision, as the journal shows it (read from the answer's rate-limit headers). */
export interface LimitDecision {
  readonly limit: number;
  readonly remaining: number;
  readonly banned: boolean;
}

export interface Applied {
  /** The preferences applied, as `Preference-Applied` names them (`code=404, example=missing`). */
  readonly preference?: string;
  /** The id of the admin rule that matched. */
  readonly rule?: string;
  readonly delayMs?: number;
  readonly fault?: FaultKind;
  /** An error status drawn from a fault list (`{status: 503, probability: 0.1}`), answered instead of the operation's own. */
  readonly injectedStatus?: number;
}

/**
 * A value now, or later. State contracts return this so that a remote store (Redis) can answer
 * asynchronously while the in-memory default answers at once: awaiting an answer that is already
 * there costs a turn of the microtask queue on every request (measured), so callers await only a
 * promise.
 */
export type Awaitable<T> = T | Promise<T>;
