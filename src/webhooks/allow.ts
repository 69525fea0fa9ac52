import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Where the sandbox may call out to. A request body names the URL a webhook or callback goes to, so
 * without a list anyone who can reach the sandbox could make it call into the network it runs in.
 * An entry is a CIDR (`10.0.0.0/8`, `fd00::/8`), a single address (`::1`), a host name
 * (`hooks.example.test`) or every name under a domain (`*.example.test`).
 */
export interface OutboundConfig {
  readonly allow: readonly string[];
}

/** Loopback only: the sandbox calls receivers on the developer's own machine and nowhere else. */
export const DEFAULT_OUTBOUND: OutboundConfig = { allow: ['127.0.0.0/8', '::1', 'localhost'] };

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Every address a host name resolves to (injected so that tests can map names without a DNS server). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** The resolver, bounded like the exchange: a name lookup that hangs must not hold an attempt open. */
export const resolveWithin =
  (resolve: Resolver, ms: number): Resolver =>
  (hostname) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no address within ${ms} ms`)), ms);
    });
    return Promise.race([resolve(hostname), expired]).finally(() => clearTimeout(timer));
  };

/** Where one attempt may connect: the checked address, and the name the receiver is told in Host. */
export interface AllowedTarget {
  readonly kind: 'allowed';
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
  /**
   * The name's other addresses, checked alike, in the order it resolved to them: tried in turn when
   * nothing listens at the one before (`localhost` is `::1` first on some systems, and a receiver
   * may listen on 127.0.0.1 only).
   */
  readonly others?: readonly { readonly address: string; readonly family: 4 | 6 }[];
}

/** `refused` is final (the configuration forbids it); `unresolved` may succeed later, so it is retried. */
export type Verdict = AllowedTarget | { readonly kind: 'refused' | 'unresolved'; readonly reason: string };

/** `::ffff:10.1.2.3` and `::ffff:a01:203` are IPv4 addresses in IPv6 clothing: judge them as IPv4. */
function unmapped(address: string): { address: string; family: 4 | 6 } {
  const lower = address.toLowerCase();
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1] !== undefined) return { address: dotted[1], family: 4 };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] !== undefined && hex[2] !== undefined) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 4 };
  }
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

export class AllowList {
  private readonly addresses = new BlockList();
  private readonly names = new Set<string>();
  private readonly domains: string[] = [];

  /** @throws on an entry that is neither a CIDR, an address nor a host name (a configuration mistake, said at start). */
  constructor(config: OutboundConfig = DEFAULT_OUTBOUND) {
    for (const entry of config.allow) {
      const [base = '', prefix, extra] = entry.trim().split('/');
      const family = isIP(base);
      if (family !== 0) {
        const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
        if (extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128) || prefix === '') {
          throw new Error(`outbound.allow: "${entry}" is not a valid CIDR`);
        }
        this.addresses.addSubnet(base, bits, family === 4 ? 'ipv4' : 'ipv6');
      } else if (prefix === undefined && /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(base)) {
        const name = base.toLowerCase().replace(/\.$/, '');
        if (name.startsWith('*.')) this.domains.push(name.slice(1));
        else this.names.add(name);
      } else {
        throw new Error(`outbound.allow: "${entry}" is neither a CIDR, an address nor a host name`);
      }
    }
  }

  allowsAddress(address: string): boolean {
    const plain = unmapped(address);
    return this.addresses.check(plain.address, plain.family === 4 ? 'ipv4' : 'ipv6');
  }

  /** A name listed itself, or under a listed `*.domain` (the domain itself is not: list it too). */
  allowsName(hostname: string): boolean {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    return this.names.has(name) || this.domains.some((domain) => name.endsWith(domain));
  }

  /**
   * Whether one attempt may call `rawUrl`, and at which address. A listed name may connect wherever
   * it resolves (the operator vouched for it); any other name only if EVERY address it resolves to is
   * allowed, since the one a connection picks is not ours to choose. The caller connects to the
   * address answered here and never resolves the name again, so a name that answers a loopback
   * address to the check and a private one to the connection (DNS rebinding) gains nothing.
   */
  async check(rawUrl: string, resolve: Resolver): Promise<Verdict> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return { kind: 'refused', reason: `not a URL: ${rawUrl}` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { kind: 'refused', reason: `only http and https URLs are called, not ${url.protocol}` };
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0) {
      const plain = unmapped(host);
      if (!this.allowsAddress(host)) return { kind: 'refused', reason: `${host} is not in outbound.allow` };
      return { kind: 'allowed', url, address: plain.address, family: plain.family };
    }
    let found: readonly ResolvedAddress[];
    try {
      found = await resolve(host);
    } catch (error) {
      return { kind: 'unresolved', reason: `${host} did not resolve: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (found.length === 0) return { kind: 'unresolved', reason: `${host} resolved to no address` };
    if (!this.allowsName(host)) {
      const outside = found.find((a) => !this.allowsAddress(a.address));
      if (outside !== undefined) {
        return { kind: 'refused', reason: `${host} resolves to ${outside.address}, which is not in outbound.allow` };
      }
    }
    const [plain, ...others] = [...new Map(found.map((a) => unmapped(a.address)).map((a) => [a.address, a])).values()];
    if (plain === undefined) return { kind: 'unresolved', reason: `${host} resolved to no address` };
    return { kind: 'allowed', url, address: plain.address, family: plain.family, ...(others.length > 0 ? { others } : {}) };
  }
}
