import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page, type Request } from 'playwright-core';
import type { Running } from './cli.js';

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

/** What Chromium puts under its temp dir: the profile's singleton socket, in a folder of its own. */
const SOCKET_TAIL = '/.org.chromium.Chromium.XXXXXX/SingletonSocket';
/** The longest path a Unix socket may have (`sun_path` is 108 bytes on Linux, its terminating NUL included). */
const SOCKET_PATH_LIMIT = 107;
const TEMP_PREFIX = 'understudy-chromium-';

/**
 * Where the browser's temp dir is made: the temp dir, unless the socket Chromium makes under it
 * would pass the Unix socket path limit (a deep TMPDIR, as the test run's own nests one), when the
 * launch aborts with "Socket path too long"; then `/tmp`, the POSIX temp dir, whose path is short.
 */
export function browserTempBase(base = tmpdir()): string {
  const longest = join(base, `${TEMP_PREFIX}XXXXXX`).length + SOCKET_TAIL.length;
  return longest <= SOCKET_PATH_LIMIT ? base : '/tmp';
}

/**
 * Headless Chromium as a closed machine needs it: no background networking, component updates,
 * sync or QUIC, so that every request the browser makes is one a page asked for. It gets a temp
 * dir of its own, short enough for its socket wherever TMPDIR points, removed when it is gone:
 * with `--disable-dev-shm-usage` its shared memory lives in temp files, and a renderer stopped
 * mid-way can leave one behind (seen once in CI).
 */
export async function launchBrowser(): Promise<Browser> {
  const temp = mkdtempSync(join(browserTempBase(), TEMP_PREFIX));
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

/** A browser and a sandbox started together for a test file, and what stops both. */
export interface Rig {
  readonly browser: Browser;
  readonly sandbox: Running;
  /** Closes the browser, stops the sandbox and runs the file's own clean-up, each whatever the others do. */
  readonly stop: () => Promise<void>;
}

/**
 * Starts the browser and the sandbox side by side. When either fails to start, the other is stopped
 * and `cleanup` runs before the failure is thrown: a setup that fails leaves no process and no
 * folder behind (a test file's `afterAll` never sees what its `beforeAll` did not return).
 */
export async function startRig(
  sandbox: () => Promise<Running>,
  cleanup: () => void = () => undefined,
  launch: () => Promise<Browser> = launchBrowser,
): Promise<Rig> {
  const [browser, running] = await Promise.allSettled([launch(), sandbox()]);
  const stop = async (): Promise<void> => {
    const stopped = await Promise.allSettled([
      browser.status === 'fulfilled' ? browser.value.close() : undefined,
      running.status === 'fulfilled' ? stopSandbox(running.value) : undefined,
    ]);
    cleanup();
    const failed = stopped.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  };
  if (browser.status === 'fulfilled' && running.status === 'fulfilled') return { browser: browser.value, sandbox: running.value, stop };
  await stop();
  throw browser.status === 'rejected' ? browser.reason : (running as PromiseRejectedResult).reason;
}

/** Stops a sandbox the way an operator does (SIGTERM), and waits until it has gone. */
async function stopSandbox(running: Running): Promise<void> {
  if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGTERM');
  await running.exited;
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

/** Where the screenshots of the README and docs/pages.md live; the suite writes them there only when asked (`npm run screenshots`). */
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
