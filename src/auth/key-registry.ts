import { hash, randomBytes } from 'node:crypto';
import type { KeyConfig } from '../config/config.js';
import { remembered } from '../vocabulary/remembered.js';
import { DEFAULT_WORKSPACE } from '../vocabulary/workspace.js';

export interface ApiKeyRecord {
  /** A stable, non-secret name for the key, safe to log: `key_1a2b3c4d`. */
  readonly id: string;
  /** What people call the key (`demo-free`, `checkout-tests`), when it was given a name: safe to show. */
  readonly name?: string;
  readonly plan: string;
  /** The workspace the key works in. */
  readonly workspace: string;
  /** The scopes (or roles) the key carries; absent: every scope. */
  readonly scopes?: readonly string[];
}

/** An issued key as a data file keeps it: its digest (never its value) and its record. */
export type IssuedKeyRecord = ApiKeyRecord & { readonly digest: string };

/** The SHA-256 digest of a secret, in hex (one-shot: a third of `createHash`'s cost). */
const digest = (secret: string): string => hash('sha256', secret, 'hex');

/**
 * The digests of the secrets presented lately: a client sends the same key on every request, and
 * hashing it each time was 2% of a request. Bounded (cleared when full), so a flood of made-up keys
 * costs a hash each, as before, and holds no more than this many in memory.
 */
const presentedDigest = remembered(1024, digest);

/**
 * The keys the sandbox accepts and the plan each belongs to. Keys (and basic passwords) are kept
 * only as SHA-256 digests (a data file, the registry), and a lookup finds what was presented by
 * its digest: how long the comparison takes depends on how much of the *digest* a guess got right,
 * which says nothing about how much of the key it got right. The last values presented are
 * remembered with their digests for the next request (`presentedDigest`).
 */
export class KeyRegistry {
  private readonly byDigest = new Map<string, ApiKeyRecord>();
  /** Basic credentials `username:password` (RFC 7617 §2: the user-id has no colon, so the pair is unambiguous). */
  private readonly byBasic = new Map<string, ApiKeyRecord>();

  constructor(private initial: readonly KeyConfig[]) {
    this.reset();
  }

  /** The configured keys replaced (a reload of the config): keys issued since the start are kept. */
  setConfigured(keys: readonly KeyConfig[]): void {
    for (const configured of this.initial) {
      this.byDigest.delete(digest(configured.key));
      if (configured.username !== undefined && configured.password !== undefined) {
        this.byBasic.delete(digest(`${configured.username}:${configured.password}`));
      }
    }
    this.initial = keys;
    this.addConfigured();
  }

  /** Back to the configured keys; keys issued since are forgotten. */
  reset(): void {
    this.byDigest.clear();
    this.byBasic.clear();
    this.addConfigured();
  }

  private addConfigured(): void {
    for (const configured of this.initial) {
      const record = this.add(
        configured.key,
        configured.plan,
        configured.workspace ?? DEFAULT_WORKSPACE,
        configured.scopes,
        configured.name,
      );
      if (configured.username !== undefined && configured.password !== undefined) {
        this.byBasic.set(digest(`${configured.username}:${configured.password}`), record);
      }
    }
  }

  add(key: string, plan: string, workspace: string = DEFAULT_WORKSPACE, scopes?: readonly string[], name?: string): ApiKeyRecord {
    const d = digest(key);
    const id = `key_${d.slice(0, 12)}`;
    const record: ApiKeyRecord = {
      id,
      ...(name === undefined ? {} : { name }),
      plan,
      workspace,
      ...(scopes === undefined ? {} : { scopes: [...scopes] }),
    };
    this.byDigest.set(d, record);
    return record;
  }

  /**
   * Issues a fresh random key on a plan, working in a workspace (the shared default one when none is
   * named), with a name when one is given (the caller checks it is not taken: `byName`).
   */
  issue(plan: string, workspace: string = DEFAULT_WORKSPACE, name?: string): { readonly key: string; readonly record: ApiKeyRecord } {
    const key = `sk_${plan}_${randomBytes(18).toString('base64url')}`;
    return { key, record: this.add(key, plan, workspace, undefined, name) };
  }

  /** The keys issued since the start (not the configured ones), as digests: what a data file keeps across a restart. */
  issued(): IssuedKeyRecord[] {
    const configured = new Set(this.initial.map((k) => digest(k.key)));
    return [...this.byDigest].filter(([d]) => !configured.has(d)).map(([d, record]) => ({ digest: d, ...record }));
  }

  /** Keys issued before a restart, back (their values were never kept: only their digests). */
  restoreIssued(keys: readonly IssuedKeyRecord[]): void {
    for (const { digest: d, ...record } of keys) this.byDigest.set(d, record);
  }

  /** The issued keys become exactly these (another replica's view of them: see src/replicas); configured keys stay. */
  replaceIssued(keys: readonly IssuedKeyRecord[]): void {
    const configured = new Set(this.initial.map((k) => digest(k.key)));
    const wanted = new Set(keys.map((k) => k.digest));
    for (const d of this.byDigest.keys()) if (!configured.has(d) && !wanted.has(d)) this.byDigest.delete(d);
    this.restoreIssued(keys);
  }

  /** Every key accepted, configured ones first, then issued ones in the order they were issued. */
  list(): { readonly record: ApiKeyRecord; readonly configured: boolean }[] {
    const configured = new Set(this.initial.map((k) => digest(k.key)));
    return [...this.byDigest].map(([d, record]) => ({ record, configured: configured.has(d) }));
  }

  /** The keys working in a workspace. */
  inWorkspace(workspace: string): ApiKeyRecord[] {
    return [...this.byDigest.values()].filter((record) => record.workspace === workspace);
  }

  /** Revokes every key working in a workspace (it was removed); answers their ids. */
  revokeWorkspace(workspace: string): string[] {
    const revoked: string[] = [];
    for (const [d, record] of this.byDigest) {
      if (record.workspace !== workspace) continue;
      this.byDigest.delete(d);
      revoked.push(record.id);
    }
    for (const [d, record] of this.byBasic) if (record.workspace === workspace) this.byBasic.delete(d);
    return revoked;
  }

  /** The record with this safe id (`key_…`), for the admin API. */
  byId(id: string): ApiKeyRecord | undefined {
    for (const record of this.byDigest.values()) if (record.id === id) return record;
    return undefined;
  }

  /** The key with this name (names are unique: the config and `issue`'s callers see to it). */
  byName(name: string): ApiKeyRecord | undefined {
    for (const record of this.byDigest.values()) if (record.name === name) return record;
    return undefined;
  }

  find(key: string): ApiKeyRecord | undefined {
    return this.byDigest.get(presentedDigest(key));
  }

  /**
   * The key presented as HTTP basic credentials (RFC 7617): a configured `username`/`password`, or
   * the key itself as the user-id with an empty password (as `curl -u KEY:` sends it).
   */
  findBasic(username: string, password: string): ApiKeyRecord | undefined {
    if (password === '') return this.byDigest.get(presentedDigest(username));
    return this.byBasic.get(presentedDigest(`${username}:${password}`));
  }
}
