import { hash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord } from './key-registry.js';

/** A token minted by the token endpoint: it stands for its client's key until it expires. */
export interface MintedToken {
  readonly key: ApiKeyRecord;
  /** The scopes granted; absent: every scope the key carries (all, for a key without `scopes`). */
  readonly scopes: readonly string[] | undefined;
  /** Sandbox time (Unix ms, the key's workspace clock) at which the token stops working. */
  readonly expiresAt: number;
}

export type TokenRead =
  { readonly kind: 'valid'; readonly token: MintedToken } | { readonly kind: 'expired' } | { readonly kind: 'unknown' };

/** Past this many live tokens, expired ones are swept on the next mint, so memory stays bounded by use. */
const SWEEP_ABOVE = 10_000;

const digestOf = (token: string): string => hash('sha256', token, 'hex');

/**
 * Access tokens minted by the token endpoint (RFC 6749 §4.4), held only as SHA-256 digests. A
 * token is 24 random bytes, so finding it by digest leaks nothing a guess could use. Expiry is read
 * from the sandbox clock handed in, never the system's.
 */
export class TokenStore {
  private readonly tokens = new Map<string, MintedToken>();

  mint(key: ApiKeyRecord, scopes: readonly string[] | undefined, now: number, lifetimeMs: number): string {
    if (this.tokens.size > SWEEP_ABOVE) this.sweep(now);
    const token = `ut_${randomBytes(24).toString('base64url')}`;
    this.tokens.set(digestOf(token), { key, scopes: scopes && [...scopes], expiresAt: now + lifetimeMs });
    return token;
  }

  /** `now` reads the clock of the token's workspace. */
  find(token: string, now: (workspace: string) => number): TokenRead {
    const minted = this.tokens.get(digestOf(token));
    if (!minted) return { kind: 'unknown' };
    return now(minted.key.workspace) >= minted.expiresAt ? { kind: 'expired' } : { kind: 'valid', token: minted };
  }

  reset(): void {
    this.tokens.clear();
  }

  /** Every live token by digest: what another replica takes over with `replace`. */
  held(): ReadonlyMap<string, MintedToken> {
    return this.tokens;
  }

  /** The tokens become exactly these (another replica's view of them). */
  replace(tokens: ReadonlyMap<string, MintedToken>): void {
    this.tokens.clear();
    for (const [digest, minted] of tokens) this.tokens.set(digest, minted);
  }

  private sweep(now: number): void {
    for (const [digest, minted] of this.tokens) if (now >= minted.expiresAt) this.tokens.delete(digest);
  }
}
