import type { ApiKeyRecord } from './key-registry.js';
import type { TokenRead } from './token-store.js';

/** What a request presents: its headers (lower-case names) and its parsed query. */
export interface Credentials {
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: ReadonlyMap<string, readonly string[]>;
}

/** Finds the key a presented credential belongs to, however it was presented. */
export interface CredentialLookup {
  /** A key sent as is: a bearer token, an apiKey value, another scheme's credentials. */
  key(presented: string): ApiKeyRecord | undefined;
  /** HTTP basic credentials (RFC 7617). */
  basic(username: string, password: string): ApiKeyRecord | undefined;
  /** A token minted by the token endpoint, with its expiry read on the sandbox clock. */
  token(presented: string): TokenRead;
}

/** A `WWW-Authenticate` challenge, with its scheme in lower case so that one per scheme is sent. */
export interface Challenge {
  readonly scheme: string;
  readonly text: string;
}
