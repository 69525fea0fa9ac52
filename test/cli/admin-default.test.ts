import { describe, expect, it } from 'vitest';
import { runCli, startCli } from '../support/cli.js';

/**
 * Admin on by default on loopback (issue 35), through the real CLI: the token it prints opens the
 * admin API; bound to an address beyond the machine, or told --no-admin, it keeps the API off.
 */

const status = (url: string, token?: string) =>
  fetch(`${new URL(url).origin}/__sandbox/status`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });

describe('the admin API on a start with no token', () => {
  it('is on when listening on loopback, behind a token it prints with the console URL', async () => {
    const cli = await startCli(['--no-watch'], { SANDBOX_CONFIG: '' });
    await cli.waitFor('console at');
    const token = /admin token (\S+) \(made for this start/.exec(cli.output())?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(cli.output()).toContain(`understudy: console at ${new URL(cli.url).origin}/__sandbox/console#token=${token}\n`);
    expect((await status(cli.url, token)).status).toBe(200);
    expect((await status(cli.url)).status).toBe(401);
    expect((await status(cli.url, 'not-the-token')).status).toBe(401);
  });

  it('stays off when listening beyond loopback, and says why', async () => {
    const cli = await startCli(['--no-watch', '--host', '0.0.0.0'], { SANDBOX_CONFIG: '' });
    const url = cli.url.replace('0.0.0.0', '127.0.0.1');
    await cli.waitFor('admin API off');
    expect(cli.output()).toContain('understudy: admin API off: listening on 0.0.0.0, beyond this machine, it needs a token');
    expect(cli.output()).not.toContain('admin token');
    const res = await status(url);
    expect(res.status).toBe(404);
  });

  it('stays off with --no-admin or SANDBOX_NO_ADMIN, and refuses --no-admin beside a token', async () => {
    for (const [args, env] of [
      [['--no-admin'], {}],
      [[], { SANDBOX_NO_ADMIN: '1' }],
    ] as const) {
      const cli = await startCli(['--no-watch', ...args], { SANDBOX_CONFIG: '', ...env });
      await cli.waitFor('admin API off (--no-admin)');
      expect((await status(cli.url)).status).toBe(404);
    }
    const both = await runCli(['--no-admin', '--admin-token', 'an-admin-token'], { SANDBOX_CONFIG: '' });
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('--no-admin (or SANDBOX_NO_ADMIN) and an admin token contradict each other');
  });
});
