/// <reference lib="dom" />
// page.evaluate callbacks run in the page: they name its globals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foreignRequests, screenshot, startRig, watchedPage, type Rig, type Watched } from '../support/browser.js';
import { startCli } from '../support/cli.js';

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/** The docs page as a visitor sees it: the operations listed and this visitor's key in the bar. */
async function openDocs(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/docs`);
  await page.locator('#operations-pets-listPets').waitFor();
  await expect.poll(() => page.locator('#sandbox-visitor code').textContent()).toMatch(/^sk_free_/);
}

describe('the docs page in a real browser', () => {
  let rig: Rig | undefined;
  let browser: Browser;
  /** The sandbox's origin (its ready line names the API's base URL, under /v1). */
  let origin: string;
  beforeAll(async () => {
    // The clock frozen: a minute window that turned between the try and the look at the key's
    // counters would show the try in the window before (it did, once).
    const dir = mkdtempSync(join(tmpdir(), 'understudy-docs-'));
    const config = join(dir, 'understudy.yaml');
    writeFileSync(config, "clock: { frozenAt: '2026-06-01T12:00:00Z' }\n");
    const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
    rig = await startRig(() => startCli(['--config', config, '--no-watch', '--admin-token', 'browser-admin-token']), removeDir);
    browser = rig.browser;
    origin = new URL(rig.sandbox.url).origin;
  });
  afterAll(async () => {
    await rig?.stop();
  });

  for (const size of SIZES) {
    it(`shows the operations at ${size.width}×${size.height}, with no error and no request to any other origin`, async () => {
      const { page, seen } = await watchedPage(browser, size);
      await openDocs(page, origin);
      await expect.poll(() => page.locator('.opblock').count()).toBeGreaterThanOrEqual(3);
      expect(await page.title()).toBe('Pet Store · sandbox');
      // No sideways scrolling of the page itself.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      const png = await screenshot(page, `docs-${size.width}`);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expectClean(seen, origin);
      await page.context().close();
    });
  }

  it('tries listPets with the visitor’s own key and shows the rate-limit headers of the answer', async () => {
    const { page, seen } = await watchedPage(browser, SIZES[0]);
    await openDocs(page, origin);
    const key = await page.locator('#sandbox-visitor code').textContent();
    const operation = page.locator('#operations-pets-listPets');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.execute').click();
    const live = operation.locator('.live-responses-table');
    await live.waitFor();
    await expect.poll(() => live.locator('tbody .response-col_status').first().textContent()).toBe('200');
    // The headers panel lists one header a line.
    const headers = (await live.locator('.headerline').allTextContents()).map((line) => line.trim());
    expect(headers).toContain('x-ratelimit-limit: 60');
    expect(headers).toContain('x-ratelimit-remaining: 59');
    expect(headers.some((line) => /^x-ratelimit-reset: \d+$/.test(line))).toBe(true);
    expect(headers).toContain('ratelimit-policy: "minute";q=60;w=60,"day";q=1000;w=86400');
    // The call went to this sandbox, with the key shown in the bar.
    const inspected = await fetch(`${origin}/__sandbox/keys/${encodeURIComponent(key ?? '')}`, {
      headers: { Authorization: 'Bearer browser-admin-token' },
    });
    expect(((await inspected.json()) as { windows: { used: number }[] }).windows[0]?.used).toBe(1);
    expectClean(seen, origin);
    await page.context().close();
  });

  it('shows the Deprecation, Sunset and Link headers of a deprecated operation in the try-it panel', async () => {
    const { page, seen } = await watchedPage(browser, SIZES[0]);
    await openDocs(page, origin);
    const operation = page.locator('#operations-pets-getPet');
    await operation.locator('.opblock-summary').click();
    await operation.locator('input[placeholder="petId"]').fill('1');
    await operation.locator('button.execute').click();
    const live = operation.locator('.live-responses-table');
    await expect.poll(() => live.locator('tbody .response-col_status').first().textContent()).toBe('200');
    const headers = (await live.locator('.headerline').allTextContents()).map((line) => line.trim());
    expect(headers.some((line) => line.startsWith('deprecation: @'))).toBe(true);
    // Swagger UI drops the space after a comma in a header value.
    expect(headers.some((line) => /^sunset: Thu, ?05 Dec 2030 00:00:00 GMT$/.test(line))).toBe(true);
    expect(headers.some((line) => line.startsWith('link: ') && line.includes('rel="successor-version"'))).toBe(true);
    expectClean(seen, origin);
    await page.context().close();
  });

  it('keeps the visitor’s key across a reload of the page, and sends a browser at / to the docs', async () => {
    const { page, seen } = await watchedPage(browser, SIZES[0]);
    await page.goto(`${origin}/`);
    expect(new URL(page.url()).pathname).toBe('/docs');
    await openDocs(page, origin);
    const first = await page.locator('#sandbox-visitor code').textContent();
    await openDocs(page, origin);
    expect(await page.locator('#sandbox-visitor code').textContent()).toBe(first);
    await page.locator('#sandbox-new-key').click();
    await expect.poll(() => page.locator('#sandbox-visitor code').textContent()).not.toBe(first);
    expectClean(seen, origin);
    await page.context().close();
  });
});

function expectClean(seen: Watched, origin: string): void {
  expect(seen.errors).toEqual([]);
  expect(foreignRequests(seen, origin)).toEqual([]);
  expect(seen.requests.length).toBeGreaterThan(0);
}

describe('the docs page on a document with every kind of security scheme', () => {
  let rig: Rig | undefined;
  let browser: Browser;
  let origin: string;
  beforeAll(async () => {
    const spec = fileURLToPath(new URL('../documents/security-schemes.yaml', import.meta.url));
    rig = await startRig(() => startCli(['--no-watch', '--spec', spec]));
    browser = rig.browser;
    origin = new URL(rig.sandbox.url).origin;
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it('authorises each scheme with the visitor’s key the way that scheme carries it', async () => {
    const { page, seen } = await watchedPage(browser, SIZES[0]);
    await page.goto(`${origin}/docs`);
    await expect.poll(() => page.locator('#sandbox-visitor code').textContent()).toMatch(/^sk_free_/);
    for (const id of ['getBearer', 'getBasic', 'getHeader', 'getQuery', 'getOauthRead', 'getOidc']) {
      const operation = page.locator(`#operations-default-${id}`);
      await operation.locator('.opblock-summary').click();
      await operation.locator('button.execute').click();
      await expect.poll(() => operation.locator('.live-responses-table tbody .response-col_status').first().textContent()).toBe('200');
    }
    expectClean(seen, origin);
    await page.context().close();
  });
});
