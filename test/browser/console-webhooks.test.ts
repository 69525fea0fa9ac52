/// <reference lib="dom" />
// page.evaluate callbacks run in the page: they name its globals.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foreignRequests, screenshot, startRig, watchedPage, type Rig, type Watched } from '../support/browser.js';
import { startCli } from '../support/cli.js';
import { receiverForTest, startReceiver, type Behaviour } from '../support/webhook-receiver.js';

/** The console's Webhooks section in headless Chromium, with real receivers on loopback: what a user sees and does. */

const TOKEN = 'console-webhooks-token';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const admin = { Authorization: `Bearer ${TOKEN}` };
/** How long a check waits for the page: past a 2 s poll of the admin API, with room to spare. */
const WAIT = { timeout: 5_000 };

/** 503 for the first request, 200 after. */
const failsOnce: Behaviour = (n, _request, response) => {
  response.writeHead(n === 1 ? 503 : 200, { 'content-type': 'text/plain' });
  response.end(n === 1 ? 'busy' : 'ok');
};

describe('the console shows webhook deliveries', () => {
  let rig: Rig | undefined;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    // The clock frozen: a retry falls due only when the test moves the clock, never while it looks.
    const dir = mkdtempSync(join(tmpdir(), 'understudy-console-webhooks-'));
    const config = join(dir, 'understudy.yaml');
    writeFileSync(config, "clock: { frozenAt: '2026-06-01T12:00:00Z' }\n");
    const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
    rig = await startRig(() => startCli(['--config', config, '--no-watch', '--admin-token', TOKEN]), removeDir);
    browser = rig.browser;
    origin = new URL(rig.sandbox.url).origin;
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await rig?.stop();
  });

  async function adminCall<T>(path: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(`${origin}/__sandbox/${path}`, {
      method,
      headers: body === undefined ? admin : { ...admin, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (res.status === 204 ? null : await res.json()) as T };
  }

  /** A key of a new workspace of its own: what one test does there is heard by its subscriptions only. */
  async function keyOfItsOwn(): Promise<{ key: string; workspace: string }> {
    const issued = await adminCall<{ key: string; workspace: string }>('keys', 'POST', { plan: 'pro' });
    expect(issued.status).toBe(201);
    return issued.body;
  }

  async function createPet(key: string): Promise<void> {
    const res = await fetch(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(res.status).toBe(201);
    await res.arrayBuffer();
  }

  async function openSignedIn(size: { width: number; height: number }): Promise<{ page: Page; seen: Watched }> {
    const watched = await watchedPage(browser, size);
    contexts.push(watched.page.context());
    await watched.page.goto(`${origin}/__sandbox/console#token=${TOKEN}`);
    await watched.page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    return watched;
  }

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('shows a failed attempt and when the retry is due, the retry after a clock move, and a replay', async () => {
    const receiver = await receiverForTest(failsOnce);
    const made = await adminCall('webhooks', 'POST', { event: 'pets.created', url: receiver.url });
    expect(made.status).toBe(201);
    await createPet('demo-pro');
    await receiver.taken(1);

    const { page, seen } = await openSignedIn(DESKTOP);
    const subscription = page.locator('#subscriptions tr', { hasText: receiver.url });
    expect(await subscription.textContent()).toContain('pets.created');
    expect(await subscription.textContent()).toContain('default');

    const row = page.locator('#deliveries tr[data-delivery-id]', { hasText: receiver.url });
    await row.waitFor(WAIT);
    expect(await row.locator('td[data-label="Status"]').textContent()).toMatch(/^pending503 after \d+ ms$/);
    expect(await row.locator('td[data-label="Attempts"]').textContent()).toBe('1 attempt');
    // The retry is due five seconds after the failure, on the sandbox clock, which stands still.
    expect(await row.locator('td[data-label="Next attempt"]').textContent()).toBe('2026-06-01 12:00:05in 5 s');

    // The console's own clock control: the retry goes at once, and the page shows it delivered.
    await page.getByRole('button', { name: '+1 minute', exact: true }).click();
    await expect.poll(() => row.locator('td[data-label="Status"]').textContent(), WAIT).toMatch(/^delivered200 after \d+ ms$/);
    expect(await row.locator('td[data-label="Attempts"]').textContent()).toBe('2 attempts');
    expect(await row.locator('td[data-label="Next attempt"]').textContent()).toBe('—');
    expect(receiver.received).toHaveLength(2);

    // Each attempt, a click away.
    const toggle = row.getByRole('button', { name: '2 attempts' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    const attempts = page.locator('#deliveries tr.detail li.attempt');
    await expect.poll(() => attempts.count(), WAIT).toBe(2);
    expect(await page.getByRole('button', { name: '2 attempts' }).getAttribute('aria-expanded')).toBe('true');
    expect(await attempts.nth(0).textContent()).toMatch(/^#12026-06-01 12:00:00 UTC503 after \d+ msretry due 2026-06-01 12:00:05 UTCbusy$/);
    expect(await attempts.nth(1).textContent()).toMatch(/^#22026-06-01 12:01:00 UTC200 after \d+ msok$/);
    expect(await text(page, '#deliveries tr.detail .sent')).toContain('"type": "pets.created"');

    // Replay: the receiver takes the same message again, and the page lists the attempt, still open.
    await row.getByRole('button', { name: /^Replay pets\.created delivery msg_/ }).click();
    await receiver.taken(3);
    expect(receiver.received[2]?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
    await expect.poll(() => attempts.count(), WAIT).toBe(3);
    expect(await attempts.nth(2).textContent()).toMatch(/^#3 \(replay\)2026-06-01 12:01:00 UTC200 after \d+ msok$/);
    expect(await row.locator('td[data-label="Attempts"]').textContent()).toBe('3 attempts');

    expect(seen.errors).toEqual([]);
    expect(foreignRequests(seen, origin)).toEqual([]);
  });

  it('subscribes from the page, says why an attempt failed, and removes the subscription', async () => {
    // A receiver that was there and is gone: its port refuses the connection.
    const gone = await startReceiver(() => undefined);
    await gone.close();
    const { key, workspace } = await keyOfItsOwn();

    const { page } = await openSignedIn(DESKTOP);
    await page.getByLabel('Event', { exact: true }).fill('pets.created');
    await page.getByLabel('Receiver URL', { exact: true }).fill(gone.url);
    await page.getByLabel('Workspace', { exact: true }).fill(workspace);
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await expect.poll(() => text(page, '#subscribe-secret'), WAIT).toMatch(/Deliveries are signed with whsec_\S+: it is shown only now\./);
    const subscription = page.locator('#subscriptions tr', { hasText: gone.url });
    await subscription.waitFor(WAIT);
    expect(await subscription.textContent()).toContain(workspace);

    await createPet(key);
    const row = page.locator('#deliveries tr[data-delivery-id]', { hasText: gone.url });
    await row.waitFor(WAIT);
    await expect.poll(() => row.locator('td[data-label="Status"]').textContent(), WAIT).toMatch(/^pendingconnection refused after \d+ ms$/);
    expect(await row.textContent()).toContain(workspace);

    // Only this workspace's failed ones, by the status filter: none is failed yet (a retry is due).
    await page.getByLabel('Show', { exact: true }).selectOption('failed');
    await expect.poll(() => text(page, '#deliveries-empty'), WAIT).toBe('No failed deliveries.');
    expect(await row.count()).toBe(0);
    await page.getByLabel('Show', { exact: true }).selectOption('pending');
    await row.waitFor(WAIT);

    await subscription.getByRole('button', { name: `Remove the subscription to pets.created at ${gone.url}` }).click();
    await expect.poll(() => subscription.count(), WAIT).toBe(0);
    const listed = await adminCall<{ webhooks: { url: string }[] }>('webhooks');
    expect(listed.body.webhooks.map((w) => w.url)).not.toContain(gone.url);

    // A subscription the API refuses says why, at the field.
    await page.getByLabel('Event', { exact: true }).fill('pets.created');
    await page.getByLabel('Receiver URL', { exact: true }).fill('http://127.0.0.1:9/hooks');
    await page.getByLabel('Workspace', { exact: true }).fill('ws_no_such_workspace');
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await expect.poll(() => text(page, '#webhooks-error'), WAIT).toContain('body.workspace');
  });

  for (const size of [DESKTOP, PHONE]) {
    it(`fits ${size.width}×${size.height} with a delivery's attempts open`, async () => {
      const receiver = await receiverForTest(failsOnce);
      const { key, workspace } = await keyOfItsOwn();
      expect((await adminCall('webhooks', 'POST', { event: 'pets.created', url: receiver.url, workspace })).status).toBe(201);
      await createPet(key);
      await receiver.taken(1);

      const { page, seen } = await openSignedIn(size);
      const row = page.locator('#deliveries tr[data-delivery-id]', { hasText: receiver.url });
      await row.waitFor(WAIT);
      await row.getByRole('button', { name: '1 attempt' }).click();
      await page.locator('#deliveries tr.detail li.attempt').first().waitFor(WAIT);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

      // The section's top just under the sticky bar, for the picture in docs/pages.md.
      await page.evaluate(() => {
        const top = document.getElementById('webhooks-section')?.getBoundingClientRect().top ?? 0;
        window.scrollBy(0, top - (document.querySelector('.bar')?.getBoundingClientRect().height ?? 0) - 8);
      });
      const png = await screenshot(page, `console-webhooks-${size.width}`);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(seen.errors).toEqual([]);
      expect(foreignRequests(seen, origin)).toEqual([]);
    });
  }
});
