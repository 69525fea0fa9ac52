/** The parts an answer's headers are made of, from the steps that decided them. */
export interface HeaderParts {
  /** CORS headers for the request's origin. */
  readonly cors?: Readonly<Record<string, string>>;
  /** The rate-limit step's headers (X-RateLimit-*, RateLimit, Retry-After). */
  readonly limit?: Readonly<Record<string, string>>;
  /** The operation's Deprecation, Sunset and successor Link. */
  readonly lifecycle?: Readonly<Record<string, string>>;
  /** The answer's own headers (Location, Link rel=next, Allow, WWW-Authenticate, ...). */
  readonly own: Readonly<Record<string, string>>;
  readonly requestId: string;
  /** The served document's generation (a reload makes the next), when the answer comes from a surface. */
  readonly generation?: string | undefined;
  readonly hasBody: boolean;
  /** The body's media type, chosen among those the document declares (`validation/answer-media.ts`); JSON when absent. */
  readonly contentType?: string | undefined;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The one place an answer's headers are assembled: every answer, API or admin, success or error,
 * goes through here. The answer's own headers win over the steps'; both Link fields are kept (the
 * answer's `rel="next"` and the operation's `rel="successor-version"`, RFC 8288 §3), and both
 * Vary lists; every answer
 * names its request (X-Request-Id), and a body is JSON unless the answer or its negotiated type says otherwise.
 */
export function answerHeaders(parts: HeaderParts): Record<string, string> {
  const headers: Record<string, string> = { ...parts.cors, ...parts.limit, ...parts.lifecycle, ...parts.own };
  const stepLink = parts.lifecycle?.link;
  const ownLink = parts.own.link;
  if (stepLink !== undefined && ownLink !== undefined) headers.link = `${ownLink}, ${stepLink}`;
  // Both Vary lists are kept too (CORS's `Origin`, a forced answer's `Prefer`; RFC 9110 §12.5.5).
  const corsVary = parts.cors?.vary;
  const ownVary = parts.own.vary;
  if (corsVary !== undefined && ownVary !== undefined) headers.vary = `${corsVary}, ${ownVary}`;
  headers['x-request-id'] = parts.requestId;
  if (parts.generation !== undefined) headers['x-sandbox-generation'] = parts.generation;
  if (parts.hasBody && headers['content-type'] === undefined) headers['content-type'] = parts.contentType ?? JSON_TYPE;
  return headers;
}
