import { describe, expect, it } from 'vitest';
import { adminLines, chooseAdmin, isLoopback } from '../../src/cli/admin-default.js';
import { DEFAULT_CONFIG } from '../../src/config/defaults.js';

/** Admin on by default, on loopback only (issue 35): the rule, and what the start says about it. */

describe('isLoopback', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.20', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['example.internal', false],
    ['128.0.0.1', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopback(host)).toBe(expected);
  });
});

describe('chooseAdmin', () => {
  const made = () => 'made-for-this-start';
  it('makes a token on loopback when none is configured', () => {
    const { config, generated } = chooseAdmin(DEFAULT_CONFIG, false, made);
    expect(generated).toBe('made-for-this-start');
    expect(config.adminToken).toBe('made-for-this-start');
  });
  it('keeps a configured token as it is', () => {
    const choice = chooseAdmin({ ...DEFAULT_CONFIG, adminToken: 'configured-token' }, false, made);
    expect(choice).toEqual({ config: { ...DEFAULT_CONFIG, adminToken: 'configured-token' }, generated: undefined });
  });
  it('leaves the admin API off on any other address', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.20']) {
      const { config, generated } = chooseAdmin({ ...DEFAULT_CONFIG, host }, false, made);
      expect(generated).toBeUndefined();
      expect(config.adminToken).toBeNull();
    }
  });
  it('makes none with --no-admin', () => {
    expect(chooseAdmin(DEFAULT_CONFIG, true, made)).toEqual({ config: DEFAULT_CONFIG, generated: undefined });
  });
  it('makes 32 URL- and shell-safe characters by default, different each start', () => {
    const one = chooseAdmin(DEFAULT_CONFIG, false).generated;
    const two = chooseAdmin(DEFAULT_CONFIG, false).generated;
    expect(one).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(one).not.toBe(two);
  });
});

describe('adminLines', () => {
  const origin = 'http://127.0.0.1:4010';
  it.each([
    [
      'a token made for the start',
      { adminToken: 'tok' },
      'tok',
      'understudy: admin token tok (made for this start: --admin-token or SANDBOX_ADMIN_TOKEN chooses one, --no-admin turns the admin API off)\n' +
        'understudy: console at http://127.0.0.1:4010/__sandbox/console#token=tok\n',
    ],
    ['a configured token', { adminToken: 'tok' }, undefined, 'understudy: console at http://127.0.0.1:4010/__sandbox/console\n'],
    ['a configured token, no console', { adminToken: 'tok', pages: { ...DEFAULT_CONFIG.pages, console: false } }, undefined, ''],
    ['--no-admin', {}, undefined, 'understudy: admin API off (--no-admin)\n'],
    [
      'another address',
      { host: '0.0.0.0' },
      undefined,
      'understudy: admin API off: listening on 0.0.0.0, beyond this machine, it needs a token (--admin-token or SANDBOX_ADMIN_TOKEN)\n',
    ],
  ])('%s', (_, overrides, generated, expected) => {
    expect(adminLines({ ...DEFAULT_CONFIG, ...overrides }, generated, origin)).toBe(expected);
  });
});
