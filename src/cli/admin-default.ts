import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { SandboxConfig } from '../config/config.js';

/**
 * Whether an address to listen on reaches this machine only: `localhost`, 127.0.0.0/8, `::1` (and
 * 127.x written as an IPv4-mapped IPv6 address). `0.0.0.0`, `::` and every other address may be
 * reached from elsewhere.
 */
export function isLoopback(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) {
    const lower = bare.toLowerCase();
    return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || /^(::ffff:|0:0:0:0:0:ffff:)127\./.test(lower);
  }
  return false;
}

export interface AdminChoice {
  readonly config: SandboxConfig;
  /** The token made for this start, when the config gave none: printed, never written anywhere. */
  readonly generated: string | undefined;
}

/**
 * The admin API's token for a start from the command line. A token configured (flag, environment or
 * file) is used as it is. Without one, a sandbox that listens on loopback only gets a token made
 * for this start, so its admin API and console are on and still closed to other users of the
 * machine's network (a browser page elsewhere cannot guess it either); bound to any other address
 * the admin API stays off unless a token is given, since the token would be the only thing between
 * the network and the sandbox's state. `--no-admin` keeps it off everywhere. A library user
 * (createSandbox) gets exactly the token its config names: this choice is the command line's.
 */
export function chooseAdmin(config: SandboxConfig, noAdmin: boolean, made: (() => string) | undefined = newToken): AdminChoice {
  // An undefined `made` takes the default: a fresh token.
  if (noAdmin) return { config: config.adminToken === null ? config : { ...config, adminToken: null }, generated: undefined };
  if (config.adminToken !== null || !isLoopback(config.host)) return { config, generated: undefined };
  const generated = made();
  return { config: { ...config, adminToken: generated }, generated };
}

/** 24 random bytes, base64url: 32 characters, no character a shell or a URL fragment treats specially. */
const newToken = (): string => randomBytes(24).toString('base64url');

/**
 * What the start says about the admin API: the token made for this start and the console's URL
 * with it in the fragment (a fragment is never sent to a server, so it is in no log; the console
 * takes it from there and removes it from the address bar), the console's plain URL when the token
 * was configured, or why the admin API is off.
 */
export function adminLines(config: SandboxConfig, generated: string | undefined, origin: string): string {
  const console = `${origin}/__sandbox/console`;
  if (generated !== undefined) {
    return (
      `understudy: admin token ${generated} (made for this start: --admin-token or SANDBOX_ADMIN_TOKEN chooses one, --no-admin turns the admin API off)\n` +
      (config.pages.console ? `understudy: console at ${console}#token=${generated}\n` : '')
    );
  }
  if (config.adminToken !== null) return config.pages.console ? `understudy: console at ${console}\n` : '';
  return isLoopback(config.host)
    ? 'understudy: admin API off (--no-admin)\n'
    : `understudy: admin API off: listening on ${config.host}, beyond this machine, it needs a token (--admin-token or SANDBOX_ADMIN_TOKEN)\n`;
}
