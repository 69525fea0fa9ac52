import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page, type Request } from 'playwright-core';

/**
 * The system's Chromium (Debian's `chromium`, installed by `.ci/run`): `CHROMIUM_PATH` when set, else
 * the first of the usual names on PATH. The driver never downloads a browser of its own.
 */
export function chromiumPath(): string {
  const named = process.env.CHROMIUM_PATH;
  if (named) return named;
  const dirs = (process.env.PATH ?? '').split(delimiter);
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error('The browser tests need Chromium: install it (Debian: apt-get install chromium; .ci/run does) or set CHROMIUM_PATH');
}

/**
 * Headless Chromium as a closed machine needs it: no background networking, component updates,
 * sync or QUIC, so that every request the browser makes is one a page asked for. It gets a temp
 * dir of its own, removed when it is gone: with `--disable-dev-shm-usage` its shared memory lives
 * in temp files, and a renderer stopped mid-way can leave one behind (seen once in CI).
 */
export async function launchBrowser(): Promise<Browser> {
  const temp = mkdtempSync(join(tmpdir(), 'understudy-chromium-'));
  const browser = await chromium
    .launch({
      executablePath: chromiumPath(),
      headless: true,
      env: { ...process.env, TMPDIR: temp },
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-dev-shm-usage',
      ],
    })
    .catch((error: unknown) => {
      rmSync(temp, { recursive: true, force: true });
      throw error;
    });
  browser.on('disconnected', () => rmSync(temp, { recursive: true, force: true }));
  return browser;
}

/** What a page did while a test watched it: every request it made, and every console error and uncaught error. */
export interface Watched {
  readonly requests: string[];
  readonly errors: string[];
}

/** A new page of the given size that records its requests and errors. */
export async function watchedPage(browser: Browser, size: { width: number; height: number }): Promise<{ page: Page; seen: Watched }> {
  const context = await browser.newContext({ viewport: size });
  const page = await context.newPage();
  const seen: Watched = { requests: [], errors: [] };
  page.on('request', (request: Request) => seen.requests.push(request.url()));
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('pageerror', (error: Error) => seen.errors.push(error.message));
  return { page, seen };
}

/** The requests that went anywhere but `origin` (data: and blob: URLs are the page's own). */
export function foreignRequests(seen: Watched, origin: string): string[] {
  return seen.requests.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob|about):/.test(url));
}

/** Where the README's screenshots live; the suite writes them there only when asked (`npm run screenshots`). */
const SCREENSHOTS = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

/**
 * Takes a screenshot of the page as it is. It is kept as `docs/screenshots/<name>.png` only under
 * `UPDATE_SCREENSHOTS=1`, so that an ordinary test run changes no file of the checkout.
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<Buffer> {
  const png = await page.screenshot(options);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    await mkdir(SCREENSHOTS, { recursive: true });
    await writeFile(`${SCREENSHOTS}${name}.png`, png);
  }
  return png;
}
