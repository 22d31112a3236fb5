// Browser-test harness: the real server as a child process on a free port and
// a fresh SQLite file, Debian's Chromium through playwright-core, and a guard
// that records every uncaught page error, failed request, 5xx answer, 4xx
// answer the flow did not declare, request to a route the server does not
// have, any WCAG 2.2 AA or best-practice violation axe-core finds in a page
// state the test visits, and (at phone size) a page wider than the screen.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { freePort } from '../../bench/lib/server.js';
import type { AppContext } from '../../src/context.js';
import { openDatabase } from '../../src/db/database.js';
import { dayOf, publishDay } from '../../src/services/record.js';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');
export const PASSWORD = 'correct horse battery staple';
/** The longest username the service takes. */
export const MAX_USERNAME = 30;

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 375, height: 812 },
  /** The phone issue 36 was tried on. */
  phone390: { width: 390, height: 844 },
} as const;

/**
 * What axe-core checks in every page state: WCAG 2.0, 2.1 and 2.2 at levels A
 * and AA, axe's best practices, and label-content-name-mismatch (WCAG 2.5.3,
 * off by default in axe: a name that does not start with the visible words).
 */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations in the page as it is now, one line each (rule, impact,
 * and the first few elements). The script goes in through the debugging
 * protocol, which the page's Content-Security-Policy does not govern.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // One run at a time in a page: a test's own call may meet the harness's check of the same state, which ends soon.
  for (let attempt = 0; ; attempt++) {
    try {
      await page.evaluate(`window.axe || (0, eval)(${JSON.stringify(AXE_SOURCE)}); 0`);
      const found = await runAxe(page);
      // null: a new document came between putting axe in and running it; it is put into that one.
      if (found !== null) return found;
      if (attempt >= 5) return [];
    } catch (err) {
      if (attempt >= 50 || !/Axe is already running/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function runAxe(page: Page): Promise<string[] | null> {
  return page.evaluate(async (tags) => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the script evaluated above, untyped in the page
    const axe = (window as any).axe;
    if (!axe) return null;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      rules: { 'label-content-name-mismatch': { enabled: true } },
      resultTypes: ['violations'],
    });
    return (
      result.violations as Array<{ id: string; impact: string; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>
    ).map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.target.join(' ')}${n.failureSummary ? ` [${n.failureSummary.replace(/\s+/g, ' ').slice(0, 200)}]` : ''}`)
          .join('; ')}`,
    );
  }, AXE_TAGS);
}

/** Waits (30 s at most, as long as any wait of the harness: a loaded machine is slow) until the page has drawn: a heading, and nothing "Loading…". */
async function quiet(page: Page): Promise<void> {
  await page
    .waitForFunction(
      () =>
        document.readyState === 'complete' &&
        document.querySelector('h1') !== null &&
        ![...document.querySelectorAll('[role=status]')].some((e) => e.textContent?.startsWith('Loading')),
      undefined,
      { timeout: 30_000 },
    )
    .catch(() => undefined);
}

export const skipReason = fs.existsSync(CHROMIUM)
  ? false
  : `SKIPPED: no Chromium at ${CHROMIUM} (install it with: apt-get update && apt-get install -y chromium)`;

/**
 * Builds the web app when it is not built. Browser-test files run side by
 * side: the first takes a lock (a directory; one left by a killed run counts
 * as gone after 10 minutes) and builds, the others wait for it.
 */
/** The newest modification time among the web app's sources (and the server code it imports). */
function newestWebSource(): number {
  let newest = 0;
  const visit = (p: string) => {
    const st = fs.statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const f of fs.readdirSync(p)) visit(path.join(p, f));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['web/src', 'web/index.html', 'web/public', 'web/vite.config.ts', 'src/domain']) visit(path.join(ROOT, p));
  return newest;
}

/** Builds web/dist when missing or older than its sources (a checkout that moved on since the last build). */
export async function ensureWebBuilt(): Promise<void> {
  const index = path.join(ROOT, 'web', 'dist', 'index.html');
  const lock = path.join(ROOT, 'web', 'dist.lock');
  const deadline = Date.now() + 15 * 60_000;
  const upToDate = () => (fs.statSync(index, { throwIfNoEntry: false })?.mtimeMs ?? -1) >= newestWebSource();
  while (!upToDate()) {
    try {
      fs.mkdirSync(lock);
    } catch {
      const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`the web app is still not built; is ${lock} left over?`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (upToDate()) return;
      const r = spawnSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('npm run build:web failed');
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

export interface Server {
  baseUrl: string;
  appUrl: string;
  /** The server's SQLite file. */
  databasePath: string;
  stop(): Promise<void>;
}

/** `env` adds to or overrides the server's environment (capacities, price cache). */
export async function startServer(env: Record<string, string> = {}): Promise<Server> {
  await ensureWebBuilt();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-test-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const logs: string[] = [];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      WEB_URL: `${baseUrl}/app/`,
      DATABASE_URL: `sqlite:${path.join(dir, 'bets.db')}`,
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const s of [child.stdout, child.stderr]) s?.on('data', (d: Buffer) => logs.push(d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${logs.join('')}`);
    try {
      const res = await fetch(`${baseUrl}/`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${logs.join('')}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    appUrl: `${baseUrl}/app/`,
    databasePath: path.join(dir, 'bets.db'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          // Its files are removed once it is gone, not while it may still be writing them.
          await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
        }
      }
      // SQLite's -wal and -shm files may still be closing: a removal that meets them is retried.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** The router's answer to a route it does not have (src/http/errors.ts, src/http/web-app.ts). */
export function isMissingRoute(status: number, body: unknown): boolean {
  return status === 404 && typeof body === 'object' && body !== null && /^Route /.test(String((body as { error?: unknown }).error));
}

/**
 * A 4xx answer a flow provokes on purpose, as "STATUS METHOD PATH" (the path
 * without its query): a string matches exactly, a pattern anywhere.
 */
export type ExpectedAnswer = string | RegExp;

/**
 * A session that ended on the server (expired, revoked, its account deleted)
 * is found out by one 401 from GET /me. A visitor's pages never ask: without
 * the signed_in marker the app knows it has no session (test/browser/visitors.test.ts).
 */
const ALWAYS_EXPECTED: ExpectedAnswer[] = ['401 GET /me'];

/** Everything that went wrong in a page that no flow provokes on purpose. */
export class Guard {
  readonly problems: string[] = [];
  private readonly pending: Promise<void>[] = [];
  private readonly expected: ExpectedAnswer[];
  /** The accessibility checks of each page, one after another (axe runs one at a time in a page). */
  private readonly axeRuns = new Map<Page, Promise<void>>();

  constructor(expected: ExpectedAnswer[] = []) {
    this.expected = [...ALWAYS_EXPECTED, ...expected];
  }

  private isExpected(answer: string): boolean {
    return this.expected.some((e) => (typeof e === 'string' ? e === answer : e.test(answer)));
  }

  /**
   * Checks the page as it is now with axe-core (AXE_TAGS); a violation is a
   * problem. Pages that are not the service's own (another origin) are not checked.
   */
  checkAccessibility(page: Page, origin: string, label = ''): Promise<void> {
    const run = (this.axeRuns.get(page) ?? Promise.resolve()).then(async () => {
      if (page.isClosed()) return;
      const url = page.url();
      if (!url.startsWith(origin)) return;
      let found: string[];
      try {
        found = await axeViolations(page);
        // A state caught between two (a move inside the app drawn over the last page's heading, a table
        // still showing the previous answer) is looked at again once the page has settled: what stays is a violation.
        if (found.length > 0) {
          await quiet(page);
          await page.waitForTimeout(1_000);
          if (page.url() !== url) return;
          found = await axeViolations(page);
        }
      } catch (err) {
        // The page navigated or closed while axe ran: the next page state gets its own check.
        if (page.isClosed() || /context was destroyed|Target .*closed|navigat/i.test(String(err))) return;
        throw err;
      }
      for (const v of found) this.problems.push(`accessibility${label ? ` (${label})` : ''} ${new URL(url).pathname}: ${v}`);
    });
    this.axeRuns.set(
      page,
      run.catch((err) => {
        this.problems.push(`accessibility check failed: ${String(err)}`);
      }),
    );
    return this.axeRuns.get(page) as Promise<void>;
  }

  watch(page: Page): Page {
    // Every page state a navigation reaches (a load, or a move inside the app) is checked once it has drawn.
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return;
      const origin = new URL(frame.url()).origin;
      const previous = this.axeRuns.get(page) ?? Promise.resolve();
      this.axeRuns.set(
        page,
        previous.then(() => quiet(page).catch(() => undefined)),
      );
      void this.checkAccessibility(page, origin);
    });
    page.on('pageerror', (err) => this.problems.push(`uncaught page error: ${err.message}`));
    page.on('requestfailed', (req) => {
      const reason = req.failure()?.errorText ?? 'unknown';
      // Leaving a page aborts its in-flight polls; that is not a failure of the service.
      if (reason === 'net::ERR_ABORTED') return;
      this.problems.push(`request failed: ${req.method()} ${req.url()} (${reason})`);
    });
    page.on('response', (res) => {
      const key = `${res.request().method()} ${new URL(res.url()).pathname}`;
      if (res.status() >= 500) {
        this.problems.push(`${res.status()} answer: ${key}`);
        return;
      }
      if (res.status() < 400) return;
      // A 404 from the router means the app calls a route that is not there, whatever the flow expects.
      if (res.status() === 404) {
        this.pending.push(
          res
            .json()
            .then((body: unknown) => {
              if (isMissingRoute(404, body)) this.problems.push(`no such route: ${key}`);
            })
            .catch(() => undefined),
        );
      }
      const answer = `${res.status()} ${key}`;
      if (!this.isExpected(answer)) this.problems.push(`unexpected ${answer}`);
    });
    page.on('popup', (p) => this.watch(p));
    return page;
  }

  /** Waits for the checks of 404 bodies and accessibility still under way (call before the page's context closes). */
  async settle(): Promise<void> {
    await Promise.race([Promise.all([...this.pending, ...this.axeRuns.values()]), new Promise((r) => setTimeout(r, 30_000))]);
  }
}

export async function newPage(
  browser: Browser,
  guard: Guard,
  opts: { viewport?: keyof typeof VIEWPORTS; colorScheme?: 'light' | 'dark'; baseURL: string; timezoneId?: string },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: VIEWPORTS[opts.viewport ?? 'desktop'],
    colorScheme: opts.colorScheme ?? 'light',
    baseURL: opts.baseURL,
    timezoneId: opts.timezoneId ?? 'UTC',
    locale: 'en-US',
  });
  // Generous: CI runs two test groups at once on two cores, and a page's first
  // load after the server starts (argon2id hashes, compressing assets) has
  // taken over 15 s there. A wait still fails when what it waits for never comes.
  context.setDefaultTimeout(30_000);
  const page = guard.watch(await context.newPage());
  return { context, page };
}

/**
 * An item of the top bar's navigation (a link, or the Log out button), made
 * visible first: on a phone the Menu button opens the menu, on a wide screen
 * the group that holds it (Trade, Community, Account) is opened.
 */
export async function navItem(page: Page, name: string, role: 'link' | 'button' = 'link'): Promise<Locator> {
  const item = page.locator('header.topbar').getByRole(role, { name, exact: true });
  if (await item.isVisible()) return item;
  const menu = page.getByRole('button', { name: 'Menu' });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) === 'false') await menu.click();
  if (await item.isVisible()) return item;
  // `has` is matched inside each group (so the inner locator starts from the page), and the closed group's items are hidden.
  const button = page
    .locator('header.topbar .nav-group', { has: page.getByRole(role, { name, exact: true, includeHidden: true }) })
    .locator('.nav-group-button');
  // A page still drawing moves the focus to its heading, which closes an open group: open it again then.
  for (let i = 0; i < 3; i++) {
    if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
    if (
      await item.waitFor({ timeout: 2_000 }).then(
        () => true,
        () => false,
      )
    )
      return item;
  }
  await item.waitFor();
  return item;
}

/**
 * Clicks a navigation item (navItem): a page still drawing can close its group between
 * opening it and the click, so the group is opened again and the click tried again.
 */
export async function clickNavItem(page: Page, name: string, role: 'link' | 'button' = 'link'): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const item = await navItem(page, name, role);
    try {
      await item.click({ timeout: 5_000 });
      return;
    } catch (err) {
      if (attempt >= 4) throw err;
    }
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A small API client for arranging data (other users' bets) outside the browser. */
export class ApiUser {
  constructor(
    readonly baseUrl: string,
    readonly id: number,
    readonly username: string,
    readonly email: string,
    private readonly cookie: string,
  ) {}

  /** Signs a browser context in with this user's session (no login page needed), with the marker that comes with it. */
  async signIn(context: BrowserContext): Promise<void> {
    const [name, value] = this.cookie.split('=');
    await context.addCookies([
      { name, value, url: this.baseUrl },
      { name: 'signed_in', value: '1', url: this.baseUrl },
    ]);
  }

  static async create(baseUrl: string, username: string): Promise<ApiUser> {
    const email = `${username}@example.test`;
    const reg = await fetch(`${baseUrl}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email, password: PASSWORD }),
    });
    if (reg.status !== 201) throw new Error(`register ${username}: ${reg.status} ${await reg.text()}`);
    const login = await fetch(`${baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`login ${username}: ${login.status}`);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const me = (await login.json()) as { id: number };
    return new ApiUser(baseUrl, me.id, username, email, cookie);
  }

  async call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const headers: Record<string, string> = { cookie: this.cookie, origin: this.baseUrl };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${urlPath}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    // Tests use the endpoints they need; one that is not there is a failure, never a status to check.
    if (isMissingRoute(res.status, json) || res.status === 501) throw new Error(`${method} ${urlPath}: no such route (${res.status} ${text})`);
    return { status: res.status, json };
  }
}

/**
 * Publishes today's root of the verifiable record now, as the service does
 * once the UTC day has ended: the service's own publishDay on the server's
 * database file, with a clock past midnight. Entries made later today stay
 * out of it, as they would after a real midnight.
 */
export async function publishRecordToday(server: Server): Promise<string> {
  const handle = openDatabase({ dialect: 'sqlite', path: server.databasePath });
  try {
    const now = Date.now();
    const ctx = { database: handle, db: handle.db, clock: { now: () => now + 86_400_000 } } as unknown as AppContext;
    const day = dayOf(now);
    if (!(await publishDay(ctx, day))) throw new Error(`the record of ${day} was not published`);
    return day;
  } finally {
    await handle.close();
  }
}

/** Nothing may overflow the screen sideways (a phone at 375 px). */
export async function assertNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  assert.ok(scroll <= client, `${name} scrolls sideways: ${scroll}px content in ${client}px`);
}

/** A browser-test file's shared state: the server, Chromium, and page helpers. */
export class BrowserSuite {
  server!: Server;
  browser!: Browser;
  private counter = 0;

  async start(env: Record<string, string> = {}): Promise<void> {
    this.server = await startServer(env);
    this.browser = await launchBrowser();
    // The web app's first answers (assets compressed once, then cached) before the first test's clock starts.
    await fetch(new URL('/app/', this.server.baseUrl), { headers: { 'accept-encoding': 'br, gzip' } }).then((r) => r.arrayBuffer());
  }

  async stop(): Promise<void> {
    // The server is stopped even when closing the browser fails; that failure is still reported.
    try {
      await this.browser?.close();
    } finally {
      await this.server?.stop();
    }
  }

  /**
   * A fresh username of the longest length the service takes (30), so every
   * page is seen with names that are hard to fit on a phone.
   */
  uniqueName(prefix: string): string {
    const name = `${prefix}_${process.pid}_${++this.counter}_`;
    if (name.length > MAX_USERNAME) throw new Error(`prefix too long for a unique username: ${prefix}`);
    return name.padEnd(MAX_USERNAME, 'W');
  }

  user(prefix: string): Promise<ApiUser> {
    return ApiUser.create(this.server.baseUrl, this.uniqueName(prefix));
  }

  /**
   * A fresh context and page; afterwards nothing may have gone wrong in it
   * (see Guard, axe-core's checks included), and a phone-sized page must not
   * scroll sideways. `expect` names the 4xx answers the flow provokes on purpose.
   */
  async withPage(
    fn: (page: Page, context: BrowserContext, check: (label: string) => Promise<void>) => Promise<void>,
    opts: { viewport?: keyof typeof VIEWPORTS; colorScheme?: 'light' | 'dark'; expect?: ExpectedAnswer[]; timezoneId?: string } = {},
  ): Promise<void> {
    const guard = new Guard(opts.expect);
    const { context, page } = await newPage(this.browser, guard, {
      baseURL: this.server.baseUrl,
      viewport: opts.viewport,
      colorScheme: opts.colorScheme,
      timezoneId: opts.timezoneId,
    });
    try {
      // `check` runs axe-core on a state reached without a navigation (a question asked, a menu open).
      await fn(page, context, (label) => guard.checkAccessibility(page, this.server.baseUrl, label));
      if (opts.viewport?.startsWith('phone') && !page.isClosed()) await assertNoSidewaysScroll(page, page.url());
      // The state the flow ended in (a question asked, a banner shown) is a page state too.
      if (!page.isClosed()) await guard.checkAccessibility(page, this.server.baseUrl, 'final state');
    } finally {
      await guard.settle();
      await context.close();
    }
    assert.deepEqual(guard.problems, [], guard.problems.join('\n'));
  }

  async logIn(page: Page, email: string, password = PASSWORD): Promise<void> {
    await page.goto('/app/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/app\/portfolio$/);
    // The address changes before the page does (a navigation waits for the next page's code): what follows acts on Portfolio.
    await page.getByRole('heading', { level: 1, name: 'Portfolio' }).waitFor();
  }
}
