import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

export interface ApiKeyRecord {
  /** A stable, non-secret name for the key, safe to log: `key_1a2b3c4d`. */
  readonly id: string;
  readonly plan: string;
  /** The workspace the key works in. */
  readonly workspace: string;
}

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

/**
 * The keys the sandbox accepts and the plan each belongs to. Keys are held only as SHA-256 digests:
 * a lookup hashes the presented key, finds the candidate by digest and confirms it with a
 * constant-time comparison, so response timing says nothing about how much of a guess was right.
 */
export class KeyRegistry {
  private readonly byDigest = new Map<string, { readonly digest: Buffer; readonly record: ApiKeyRecord }>();

  constructor(private readonly initial: readonly { readonly key: string; readonly plan: string }[]) {
    this.reset();
  }

  /** Back to the configured keys; keys issued since are forgotten. */
  reset(): void {
    this.byDigest.clear();
    for (const { key, plan } of this.initial) this.add(key, plan);
  }

  add(key: string, plan: string, workspace: string = DEFAULT_WORKSPACE): ApiKeyRecord {
    const d = digest(key);
    const record = { id: `key_${d.toString('hex').slice(0, 12)}`, plan, workspace };
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
    const d = digest(key);
    const entry = this.byDigest.get(d.toString('hex'));
    return entry && timingSafeEqual(entry.digest, d) ? entry.record : undefined;
  }
}
