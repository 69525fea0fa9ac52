/// <reference lib="dom" />
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { foreignRequests, startRig, watchedPage, type Rig, type Watched } from '../support/browser.js';
import { startCli } from '../support/cli.js';

/** The console's integration report in headless Chromium, against the built CLI: pick a client, read its verdicts, open an entry. */

const TOKEN = 'report-admin-token';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const admin = { Authorization: `Bearer ${TOKEN}` };
const WAIT = { timeout: 5_000 };

describe('the integration report in the console', () => {
  let rig: Rig | undefined;
  let browser: Browser;
  let origin: string;
  const contexts: BrowserContext[] = [];
  /** The request the impatient client sent before Retry-After had passed. */
  let early: string;
  let workspace: string;

  beforeAll(async () => {
    rig = await startRig(() => startCli(['--admin-token', TOKEN, '--no-watch'], { SANDBOX_CONFIG: '' }));
    browser = rig.browser;
    origin = new URL(rig.sandbox.url).origin;
    const issued = await fetch(`${origin}/__sandbox/keys`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', name: 'impatient-client' }),
    });
    const { key, workspace: ws } = (await issued.json()) as { key: string; workspace: string };
    workspace = ws;
    const send = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${origin}${path}`, { headers: { Authorization: `Bearer ${key}`, ...headers } });
      await res.arrayBuffer();
      return res;
    };
    // A call to the deprecated getPet; then a 429 (its Retry-After is at least a second), and a request at once: sent too soon.
    expect((await send('/v1/pets/1')).status).toBe(200);
    expect((await send('/v1/pets?limit=1', { prefer: 'code=429' })).status).toBe(429);
    early = (await send('/v1/pets?limit=1')).headers.get('x-request-id') ?? '';
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await rig?.stop();
  });

  async function openSignedIn(size: { width: number; height: number }): Promise<{ page: Page; seen: Watched }> {
    const watched = await watchedPage(browser, size);
    contexts.push(watched.page.context());
    await watched.page.goto(`${origin}/__sandbox/console`);
    await watched.page.locator('#token-input').fill(TOKEN);
    await watched.page.locator('#token-submit').click();
    await watched.page.locator('#report-section').waitFor();
    return watched;
  }

  it('shows the verdicts of a key, and a finding’s journal entry a click away', async () => {
    const { page, seen } = await openSignedIn(DESKTOP);
    await expect.poll(() => page.getByRole('heading', { name: 'Integration report', exact: true }).isVisible(), WAIT).toBe(true);
    // The keys are offered as the subject is typed.
    await page.locator('#report-subject').focus();
    await expect.poll(() => page.locator('#report-subjects option[value="impatient-client"]').count(), WAIT).toBe(1);
    await page.locator('#report-subject').fill('impatient-client');
    await page.locator('#report-run').click();

    const verdict = page.locator('#report .report-verdict');
    await verdict.waitFor(WAIT);
    expect(await verdict.getAttribute('data-verdict')).toBe('fail');
    expect(await verdict.textContent()).toContain('Not ready for go-live over 3 requests');
    expect(await page.locator('#report-coverage').textContent()).toContain('Covers 3 requests of key impatient-client');
    const backoff = page.locator('#report .finding[data-finding="backoff"]');
    expect(await backoff.getAttribute('data-verdict')).toBe('fail');
    expect(await backoff.locator('.finding-sentence').textContent()).toContain('Sent 1 request before Retry-After had passed');
    expect(await page.locator('#report .finding[data-finding="deprecated"]').getAttribute('data-verdict')).toBe('warn');
    expect(await page.locator('#report .finding[data-finding="validation"]').getAttribute('data-verdict')).toBe('pass');

    // The offending request, as the journal shows it.
    await backoff.locator(`.report-links > [data-report-entry="${early}"]`).first().click();
    const entry = backoff.locator('.report-entry');
    await expect.poll(() => entry.isVisible(), WAIT).toBe(true);
    const text = (await entry.textContent()) ?? '';
    expect(text).toContain(`Request id ${early}`);
    expect(text).toContain('GET /v1/pets?limit=1');
    expect(text).toContain('authorization: Bearer [redacted]');

    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(seen.errors).toEqual([]);
    expect(foreignRequests(seen, origin)).toEqual([]);
  });

  it('reports on a workspace, says why a request is refused, and fits a phone', async () => {
    const { page, seen } = await openSignedIn(PHONE);
    await page.locator('#report-kind').selectOption('workspace');
    await page.locator('#report-subject').fill('ws_does_not_exist');
    await page.locator('#report-run').click();
    await expect.poll(() => page.locator('#report-error').textContent(), WAIT).toContain('No workspace ws_does_not_exist');
    expect(await page.locator('#report').isVisible()).toBe(false);

    await page.locator('#report-subject').fill(workspace);
    await page.locator('#report-run').click();
    await page.locator('#report .report-verdict[data-verdict="fail"]').waitFor(WAIT);
    expect(await page.locator('#report-error').isVisible()).toBe(false);
    expect(await page.locator('#report .report-traffic tbody tr').count()).toBe(3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    const png = await page.screenshot({ fullPage: true });
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // The browser logs the refused report's 404; nothing else went wrong.
    expect(seen.errors).toEqual([expect.stringContaining('status of 404')]);
  });
});
