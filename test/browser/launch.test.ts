import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { browserTempBase, launchBrowser, startRig } from '../support/browser.js';
import { startCli, type Running } from '../support/cli.js';

/**
 * The browser tests' own setup: Chromium starts wherever TMPDIR points (its singleton socket must
 * stay within the Unix socket path limit), and a setup that fails stops what did start and removes
 * its folders.
 */

describe('the browser tests’ setup', () => {
  const saved = process.env.TMPDIR;
  const made: string[] = [];
  afterEach(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /** A TMPDIR far past what a Unix socket path may hold. */
  const deepTemp = (): string => {
    const root = mkdtempSync(join(tmpdir(), 'understudy-deep-'));
    made.push(root);
    const deep = join(root, ...Array<string>(8).fill('a-rather-long-folder-name'));
    mkdirSync(deep, { recursive: true });
    return deep;
  };

  it('launches Chromium under a TMPDIR deeper than a socket path may be, and leaves nothing in it', async () => {
    const deep = deepTemp();
    expect(deep.length).toBeGreaterThan(108);
    expect(browserTempBase(deep)).toBe('/tmp');
    expect(browserTempBase('/tmp')).toBe('/tmp');
    process.env.TMPDIR = deep;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      expect(await page.evaluate('1 + 1')).toBe(2);
    } finally {
      await browser.close();
    }
    expect(readdirSync(deep)).toEqual([]);
  });

  it('stops the sandbox and removes the folder when the browser does not launch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-setup-'));
    made.push(dir);
    let started: Running | undefined;
    const sandbox = async (): Promise<Running> => (started = await startCli(['--no-watch']));
    const failing = (): Promise<Browser> => Promise.reject(new Error('no browser here'));
    await expect(startRig(sandbox, () => rmSync(dir, { recursive: true, force: true }), failing)).rejects.toThrow('no browser here');
    expect(started?.child.exitCode !== null || started.child.signalCode !== null).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });

  it('closes the browser and removes the folder when the sandbox does not start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'understudy-setup-'));
    made.push(dir);
    let launched: Browser | undefined;
    const launch = async (): Promise<Browser> => (launched = await launchBrowser());
    const sandbox = (): Promise<Running> => startCli(['--no-watch', '--spec', join(dir, 'missing.yaml')]);
    await expect(startRig(sandbox, () => rmSync(dir, { recursive: true, force: true }), launch)).rejects.toThrow(/exited/);
    expect(launched?.isConnected()).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
