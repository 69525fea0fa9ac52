/// <reference lib="dom" />
// page.evaluate callbacks run in the page: they name its globals.
import { performance } from 'node:perf_hooks';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foreignRequests, screenshot, startRig, watchedPage, type Rig, type Watched } from '../support/browser.js';
import { startCli } from '../support/cli.js';

/** The admin console in headless Chromium, against the built CLI: what a user sees and does. */

const TOKEN = 'console-admin-token';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const admin = { Authorization: `Bearer ${TOKEN}` };
/** How long a check waits for the page: past a 2 s poll of the admin API, with room to spare. */
const WAIT = { timeout: 5_000 };

interface ListedKey {
  id: string;
  windows: { window: 'minute' | 'day'; reset: number }[];
}

describe('the admin console in a real browser', () => {
  let rig: Rig | undefined;
  let browser: Browser;
  let origin: string;
  /** demo-free's safe id, as the console shows it. */
  let demoFree: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    rig = await startRig(() => startCli(['--admin-token', TOKEN, '--no-watch'], { SANDBOX_CONFIG: '' }));
    browser = rig.browser;
    origin = new URL(rig.sandbox.url).origin;
    demoFree = (await adminGet<ListedKey>('keys/demo-free')).id;
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await rig?.stop();
  });

  async function adminGet<T>(path: string): Promise<T> {
    const res = await fetch(`${origin}/__sandbox/${path}`, { headers: admin });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  async function open(size: { width: number; height: number }): Promise<{ page: Page; seen: Watched }> {
    const watched = await watchedPage(browser, size);
    contexts.push(watched.page.context());
    await watched.page.goto(`${origin}/__sandbox/console`);
    await watched.page.locator('#token-form').waitFor();
    return watched;
  }

  async function signIn(page: Page, token = TOKEN): Promise<void> {
    await page.locator('#token-input').fill(token);
    await page.locator('#token-submit').click();
  }

  /** The console, signed in, its journal stream open and its keys listed. */
  async function openSignedIn(size: { width: number; height: number }): Promise<{ page: Page; seen: Watched }> {
    const watched = await open(size);
    await signIn(watched.page);
    await watched.page.locator('#journal-live[data-live="true"]').waitFor();
    await watched.page.locator(`#keys tr[data-key-id="${demoFree}"]`).waitFor();
    return watched;
  }

  const minuteReset = (page: Page) =>
    page.locator(`#keys tr[data-key-id="${demoFree}"] td[data-window="minute"]`).getAttribute('data-reset').then(Number);
  const clockNow = (page: Page) => page.locator('#clock-now').getAttribute('data-now').then(Number);

  it('asks for the admin token, refuses a wrong one, and keeps the right one in session storage only', async () => {
    const { page } = await open(DESKTOP);
    expect(await page.locator('#app').isVisible()).toBe(false);

    await signIn(page, 'not-the-admin-token');
    await expect.poll(() => page.locator('#token-error').textContent(), WAIT).toContain('not the admin token');
    expect(await page.locator('#token-form').isVisible()).toBe(true);
    expect(await page.locator('#app').isVisible()).toBe(false);

    await signIn(page);
    await page.locator('#app').waitFor();
    expect(await page.locator('#token-form').isVisible()).toBe(false);
    for (const section of ['Journal', 'Keys', 'Clock', 'Reload', 'Workspaces', 'Rules and faults', 'Webhooks']) {
      await expect.poll(() => page.getByRole('heading', { name: section, exact: true }).isVisible(), WAIT).toBe(true);
    }
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem('understudy.adminToken'),
      local: Object.keys(localStorage).map((name) => `${name}=${localStorage.getItem(name)}`),
    }));
    expect(stored.session).toBe(TOKEN);
    expect(stored.local.join('\n')).not.toContain(TOKEN);

    // A reload of the tab keeps the session; signing out forgets it.
    await page.reload();
    await page.locator('#app').waitFor();
    await page.locator('#sign-out').click();
    await page.locator('#token-form').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('understudy.adminToken'))).toBeNull();
  });

  it('shows a request sent with curl in the live journal within one second', async () => {
    const { page } = await openSignedIn(DESKTOP);
    const res = await fetch(`${origin}/v1/pets?limit=1`, { headers: { Authorization: 'Bearer demo-free' } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const answered = performance.now();
    const id = res.headers.get('x-request-id');
    const row = page.locator(`#journal tr[data-request-id="${id}"]`);
    await row.waitFor({ timeout: 1_000 });
    const elapsed = performance.now() - answered;
    expect(elapsed).toBeLessThan(1_000);

    const cells = await row.locator('td').allTextContents();
    // The key by its name, its id a hover away.
    expect(cells.slice(1, 6)).toEqual(['GET', '/v1/pets?limit=1', '200', 'listPets', 'demo-free']);
    expect(await row.locator('td.key').getAttribute('title')).toBe(demoFree);
    // Its redacted request and answer, a click away.
    await row.click();
    const detail = page.locator(`#journal tr[data-detail-for="${id}"]`);
    await detail.waitFor();
    const text = (await detail.textContent()) ?? '';
    expect(text).toContain('authorization: Bearer [redacted]');
    expect(text).not.toContain('demo-free');
    expect(text).toContain('"name": "Gracie"');
  });

  it('signs in from the URL the start prints (#token=…), and takes the token out of the address bar', async () => {
    const watched = await watchedPage(browser, DESKTOP);
    contexts.push(watched.page.context());
    const { page } = watched;
    await page.goto(`${origin}/__sandbox/console#token=${TOKEN}`);
    await page.locator('#app').waitFor();
    expect(page.url()).toBe(`${origin}/__sandbox/console`);
    expect(await page.evaluate(() => sessionStorage.getItem('understudy.adminToken'))).toBe(TOKEN);
    // The fragment never reached the sandbox: no request carried it.
    expect(watched.seen.requests.some((r) => r.includes('token='))).toBe(false);
  });

  it('shows each key by its name, and lets a banned key in again with one click', async () => {
    const issued = await fetch(`${origin}/__sandbox/keys`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'free', name: 'locked-out' }),
    });
    const { key, id } = (await issued.json()) as { key: string; id: string };
    for (let i = 0; i < 81; i++)
      await (await fetch(`${origin}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } })).arrayBuffer();

    const { page } = await openSignedIn(DESKTOP);
    const row = page.locator(`#keys tr[data-key-id="${id}"]`);
    await row.waitFor();
    expect(await row.locator('.key-name').textContent()).toBe('locked-out');
    expect(await page.locator(`#keys tr[data-key-id="${demoFree}"] .key-name`).textContent()).toBe('demo-free');
    await expect.poll(() => row.locator('td[data-label="Ban"]').textContent(), WAIT).toContain('banned');

    await row.locator(`[data-clear-key="${id}"]`).click();
    await expect.poll(() => row.locator('td[data-label="Ban"]').textContent(), WAIT).toContain('not banned');
    expect(await row.locator('[data-clear-key]').count()).toBe(0);
    const res = await fetch(`${origin}/v1/pets?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("moves a key's reset time when the clock is advanced an hour from the console", async () => {
    const { page } = await openSignedIn(DESKTOP);
    const nowBefore = await clockNow(page);
    const resetBefore = await minuteReset(page);
    expect(resetBefore).toBeGreaterThan(nowBefore);

    await page.locator('[data-advance="3600"]').click();
    await expect.poll(async () => (await clockNow(page)) - nowBefore, WAIT).toBeGreaterThanOrEqual(3600);
    expect((await clockNow(page)) - nowBefore).toBeLessThan(3600 + 30);
    await expect.poll(async () => (await minuteReset(page)) - resetBefore, WAIT).toBeGreaterThanOrEqual(3600);
    // What the page shows is what the admin API says (polled: the page reads it every 2 s).
    await expect
      .poll(async () => {
        const { keys } = await adminGet<{ keys: ListedKey[] }>('keys');
        const reset = keys.find((key) => key.id === demoFree)?.windows.find((w) => w.window === 'minute')?.reset;
        return reset === (await minuteReset(page));
      }, WAIT)
      .toBe(true);
    expect((await minuteReset(page)) - resetBefore).toBeLessThan(3600 + 90);

    // Back to real time, from the console too.
    await page.locator('#clock-reset').click();
    await expect.poll(async () => Math.abs((await clockNow(page)) - Date.now() / 1000), WAIT).toBeLessThan(5);
  });

  for (const size of [DESKTOP, PHONE]) {
    it(`fits ${size.width}×${size.height} with no error and no request to any other origin`, async () => {
      const rule = await fetch(`${origin}/__sandbox/rules`, {
        method: 'POST',
        headers: { ...admin, 'content-type': 'application/json' },
        body: JSON.stringify({ match: { operationId: 'getPet' }, latency: { fixed: 120 } }),
      });
      expect(rule.status).toBe(201);
      const { id: ruleId } = (await rule.json()) as { id: string };
      try {
        const { page, seen } = await openSignedIn(size);
        const sent: string[] = [];
        for (const [path, key] of [
          ['/v1/pets?limit=2', 'demo-free'],
          ['/v1/pets/1', 'demo-pro'],
          ['/v1/pets/999999', 'demo-pro'],
          ['/v1/nope', 'demo-business'],
        ]) {
          const res = await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}` } });
          await res.arrayBuffer();
          sent.push(res.headers.get('x-request-id') ?? '');
        }
        for (const id of sent) await page.locator(`#journal tr[data-request-id="${id}"]`).waitFor();
        await page.locator(`#rules li[data-rule-id="${ruleId}"]`).waitFor();
        // The next poll of the keys counts those requests: on the day's gauge, since the minute's
        // starts again at 0 when a minute boundary falls between the request and the poll.
        await expect
          .poll(() => page.locator(`#keys tr[data-key-id="${demoFree}"] td[data-window="day"] .gauge-text`).textContent(), WAIT)
          .not.toMatch(/^0 \//);

        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        const png = await screenshot(page, `console-${size.width}`, { fullPage: true });
        expect(png.subarray(1, 4).toString()).toBe('PNG');
        // An open entry stays inside the journal's own box.
        await page.locator(`#journal tr[data-request-id="${sent[1]}"]`).click();
        await page.locator(`#journal tr[data-detail-for="${sent[1]}"]`).waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

        expect(seen.errors).toEqual([]);
        expect(foreignRequests(seen, origin)).toEqual([]);
        expect(seen.requests.length).toBeGreaterThan(0);
      } finally {
        await fetch(`${origin}/__sandbox/rules/${ruleId}`, { method: 'DELETE', headers: admin });
      }
    });
  }

  it('adds a rule from the page, lists it, deletes it, and shows why an invalid one is refused', async () => {
    const { page } = await openSignedIn(DESKTOP);
    await page.locator('#rule-json').fill('{"match":{"operationId":"listPets"},"respond":{"status":503},"times":1}');
    await page.locator('#rule-add').click();
    const item = page.locator('#rules li', { hasText: '"operationId":"listPets"' });
    await item.waitFor();
    const id = await item.getAttribute('data-rule-id');
    expect(id).toMatch(/^rule_\d+$/);
    expect(await item.textContent()).toContain('1 left');
    expect((await adminGet<{ id: string }[]>('rules')).map((r) => r.id)).toContain(id);

    await item.locator(`[data-delete-rule="${id}"]`).click();
    await expect.poll(() => page.locator(`#rules li[data-rule-id="${id}"]`).count(), WAIT).toBe(0);
    expect((await adminGet<{ id: string }[]>('rules')).map((r) => r.id)).not.toContain(id);
    expect(await page.locator('#rules-empty').isVisible()).toBe(true);

    await page.locator('#rule-json').fill('{"match":{"operationId":"noSuchOperation"},"respond":{"status":503}}');
    await page.locator('#rule-add').click();
    const error = page.locator('#rule-error');
    await expect.poll(() => error.textContent(), WAIT).toContain('body.match.operationId');
    expect(await error.isVisible()).toBe(true);
    expect(await page.locator('#rules li').count()).toBe(0);

    await page.locator('#rule-json').fill('{"match":');
    await page.locator('#rule-add').click();
    await expect.poll(() => error.textContent(), WAIT).toContain('not valid JSON');
  });
});
