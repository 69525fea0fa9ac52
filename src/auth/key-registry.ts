import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyConfig } from '../config/config.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

export interface ApiKeyRecord {
  /** A stable, non-secret name for the key, safe to log: `key_1a2b3c4d`. */
  readonly id: string;
  readonly plan: string;
  /** The workspace the key works in. */
  readonly workspace: string;
  /** The scopes (or roles) the key carries; absent: every scope. */
  readonly scopes?: readonly string[];
}

interface Entry {
  readonly digest: Buffer;
  readonly record: ApiKeyRecord;
}

const digest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** Looks a secret up by its digest and confirms it in constant time. */
function lookUp(entries: ReadonlyMap<string, Entry>, secret: string): ApiKeyRecord | undefined {
  const d = digest(secret);
  const entry = entries.get(d.toString('hex'));
  return entry && timingSafeEqual(entry.digest, d) ? entry.record : undefined;
}

/**
 * The keys the sandbox accepts and the plan each belongs to. Keys (and basic passwords) are held
 * only as SHA-256 digests: a lookup hashes what was presented, finds the candidate by digest and
 * confirms it with a constant-time comparison, so response timing says nothing about how much of a
 * guess was right.
 */
export class KeyRegistry {
  private readonly byDigest = new Map<string, Entry>();
  /** Basic credentials `username:password` (RFC 7617 §2: the user-id has no colon, so the pair is unambiguous). */
  private readonly byBasic = new Map<string, Entry>();

  constructor(private readonly initial: readonly KeyConfig[]) {
    this.reset();
  }

  /** Back to the configured keys; keys issued since are forgotten. */
  reset(): void {
    this.byDigest.clear();
    this.byBasic.clear();
    for (const configured of this.initial) {
      const record = this.add(configured.key, configured.plan, DEFAULT_WORKSPACE, configured.scopes);
      if (configured.username !== undefined && configured.password !== undefined) {
        const d = digest(`${configured.username}:${configured.password}`);
        this.byBasic.set(d.toString('hex'), { digest: d, record });
      }
    }
  }

  add(key: string, plan: string, workspace: string = DEFAULT_WORKSPACE, scopes?: readonly string[]): ApiKeyRecord {
    const d = digest(key);
    const id = `key_${d.toString('hex').slice(0, 12)}`;
    const record: ApiKeyRecord = scopes === undefined ? { id, plan, workspace } : { id, plan, workspace, scopes: [...scopes] };
    this.byDigest.set(d.toString('hex'), { digest: d, record });
    return record;
  }

  /** Issues a fresh random key on a plan. */
  issue(plan: string): { readonly key: string; readonly record: ApiKeyRecord } {
    const key = `sk_${plan}_${randomBytes(18).toString('base64url')}`;
    return { key, record: this.add(key, plan) };
  }

  /** The record with this safe id (`key_…`), for the admin API. */
  byId(id: string): ApiKeyRecord | undefined {
    for (const { record } of this.byDigest.values()) if (record.id === id) return record;
    return undefined;
  }

  find(key: string): ApiKeyRecord | undefined {
    return lookUp(this.byDigest, key);
  }

  /**
   * The key presented as HTTP basic credentials (RFC 7617): a configured `username`/`password`, or
   * the key itself as the user-id with an empty password (as `curl -u KEY:` sends it).
   */
  findBasic(username: string, password: string): ApiKeyRecord | undefined {
    if (password === '') return lookUp(this.byDigest, username);
    return lookUp(this.byBasic, `${username}:${password}`);
  }
}
