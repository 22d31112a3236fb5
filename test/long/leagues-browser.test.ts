// Leagues in Chromium against the real server: the list and the create form,
// the invite link a visitor opens (name and rules, sign up, lands in the
// league), and a finished league's frozen board on a 375 px phone with the
// caller's row highlighted.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ApiUser, BrowserSuite, screenshot, skipReason } from '../browser/harness.js';

if (skipReason) console.log(skipReason);

async function ok<T>(user: ApiUser, method: string, path: string, body?: unknown): Promise<T> {
  const r = await user.call(method, path, body);
  assert.ok(r.status === 200 || r.status === 201, `${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json as T;
}

interface League {
  id: number;
  invite_code: string;
  status: string;
}

const rules = { instruments: 'crypto', min_closed_bets: 1, scoring: 'gain' };

describe('web app in Chromium: leagues', { skip: skipReason }, () => {
  const suite = new BrowserSuite();
  // The league worker runs every second, so a league a few seconds long ends and is settled while the test waits.
  before(() => suite.start({ SETTLEMENT_INTERVAL_SECONDS: '1', PRICE_CACHE_MS: '200' }));
  after(() => suite.stop());

  test('create a league from the form; it lists under your leagues and shows its invite link', async () => {
    const owner = await suite.user('lown');
    await suite.withPage(async (page, context) => {
      await owner.signIn(context);
      await page.goto('/app/leagues');
      await page.getByRole('heading', { name: 'Leagues', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New league' }).click();
      const form = page.getByTestId('league-form');
      await form.getByLabel('Name').fill('Thursday night club');
      await form.getByLabel('Description').fill('Crypto only, summed gain');
      await form.getByLabel('What counts').selectOption('crypto');
      await form.getByLabel('Scoring').selectOption('skill');
      await form.getByRole('button', { name: 'Create league' }).click();
      await page.waitForURL(/\/app\/leagues\/\d+$/);
      await page.getByTestId('league-name').getByText('Thursday night club').waitFor();
      assert.match(await page.getByTestId('league-rules').innerText(), /Crypto only · Skill against the market/);
      assert.match(await page.getByTestId('invite-link').innerText(), /\/app\/leagues\/join\/[A-Z2-9]{10}$/);
      assert.equal(await page.getByTestId('league-status').innerText(), 'Starts soon');
      await page.goto('/app/leagues');
      await page.getByTestId('my-leagues').getByText('Thursday night club').waitFor();
      await screenshot(page, 'leagues-list-desktop');
    });
    // The list and the open form fit a phone too.
    await suite.withPage(
      async (page, context) => {
        await owner.signIn(context);
        await page.goto('/app/leagues');
        await page.getByTestId('my-leagues').getByText('Thursday night club').waitFor();
        await page.getByRole('button', { name: 'New league' }).click();
        await page.getByTestId('league-form').waitFor();
        await screenshot(page, 'leagues-form-phone');
      },
      { viewport: 'phone' },
    );
  });

  test('a visitor opens the invite link on a phone, sees the name and rules, signs up and lands in the league', async () => {
    const owner = await suite.user('linv');
    const now = Date.now();
    const league = await ok<League>(owner, 'POST', '/leagues', {
      name: 'Invite only',
      description: 'Friends from the club',
      starts_at: new Date(now + 3_600_000).toISOString(),
      ends_at: new Date(now + 7 * 86_400_000).toISOString(),
      visibility: 'private',
      rules: { instruments: 'stocks', min_closed_bets: 3, scoring: 'gain' },
    });
    await suite.withPage(
      async (page) => {
        await page.goto(`/app/leagues/join/${league.invite_code}`);
        const card = page.getByTestId('league-invite');
        await card.getByTestId('invite-name').getByText('Invite only').waitFor();
        assert.match(await card.getByTestId('invite-rules').innerText(), /Stocks and ETFs only · Summed gain, ranked from 3 counted bets/);
        await screenshot(page, 'league-invite-phone');
        await card.getByTestId('invite-register').click();
        await page.waitForURL(/\/app\/register\?next=/);
        const username = suite.uniqueName('ljoin');
        await page.getByLabel('Username').fill(username);
        await page.getByLabel('Email').fill(`${username}@example.test`);
        await page.getByLabel('Password', { exact: true }).fill('a perfectly long passphrase here');
        await page.getByRole('button', { name: 'Create account' }).click();
        await page.waitForURL(new RegExp(`/app/leagues/${league.id}$`));
        await page.getByTestId('league-name').getByText('Invite only').waitFor();
        await page.getByTestId('board-me').waitFor();
        const members = (await ok<{ members: Array<{ username: string }> }>(owner, 'GET', `/leagues/${league.id}`)).members;
        assert.deepEqual(
          members.map((m) => m.username),
          [owner.username, username],
        );
      },
      { viewport: 'phone' },
    );
  });

  test('an invite link refuses joining a full league, and a started one', async () => {
    const owner = await suite.user('lful');
    const first = await suite.user('lfir');
    const late = await suite.user('llat');
    const now = Date.now();
    const full = await ok<League>(owner, 'POST', '/leagues', {
      name: 'Two seats',
      starts_at: new Date(now + 3_600_000).toISOString(),
      ends_at: new Date(now + 86_400_000).toISOString(),
      visibility: 'private',
      member_limit: 2,
      rules,
    });
    await ok(first, 'POST', '/leagues/join', { code: full.invite_code });
    const started = await ok<League>(owner, 'POST', '/leagues', {
      name: 'Already under way',
      starts_at: new Date(now).toISOString(),
      ends_at: new Date(now + 86_400_000).toISOString(),
      visibility: 'private',
      rules,
    });
    await suite.withPage(
      async (page, context) => {
        await late.signIn(context);
        await page.goto(`/app/leagues/join/${full.invite_code}`);
        await page.getByTestId('invite-join').click();
        await page.getByRole('alert').getByText('This league is full (2 members)').waitFor();
        await page.goto(`/app/leagues/join/${started.invite_code}`);
        await page.getByText('This league has already started: it no longer takes members.').waitFor();
        assert.equal(await page.getByTestId('invite-join').count(), 0);
      },
      { viewport: 'phone', expect: ['409 POST /leagues/join'] },
    );
  });

  test("a finished league's page on a phone: the final board, frozen, with the caller's row highlighted and no sideways scroll", async () => {
    const owner = await suite.user('lfin');
    const rival = await suite.user('lriv');
    const now = Date.now();
    const league = await ok<League>(owner, 'POST', '/leagues', {
      name: 'A sprint of a few seconds',
      starts_at: new Date(now + 1500).toISOString(),
      ends_at: new Date(now + 6000).toISOString(),
      visibility: 'public',
      rules,
    });
    await ok(rival, 'POST', `/leagues/${league.id}/join`);
    await new Promise((r) => setTimeout(r, Math.max(0, now + 1700 - Date.now())));
    for (const u of [owner, rival]) {
      const bet = await ok<{ bet_id: number }>(u, 'POST', '/bet/open', { ticker: 'BTC-USD', direction: u === owner ? 'LONG' : 'SHORT' });
      await new Promise((r) => setTimeout(r, 400));
      await ok(u, 'POST', '/bet/close', { bet_id: bet.bet_id });
    }
    // The end, then the worker's pass that freezes the board.
    const deadline = Date.now() + 30_000;
    let status = '';
    while (status !== 'final' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await ok<League>(owner, 'GET', `/leagues/${league.id}`)).status;
    }
    assert.equal(status, 'final');
    await suite.withPage(
      async (page, context) => {
        await rival.signIn(context);
        await page.goto(`/app/leagues/${league.id}`);
        await page.getByRole('heading', { name: 'Final board' }).waitFor();
        assert.equal(await page.getByTestId('league-status').innerText(), 'Final');
        assert.match(await page.getByTestId('board-as-of').innerText(), /Frozen at the end/);
        const mine = page.getByTestId('board-me');
        assert.equal(await mine.getAttribute('class'), 'row-me');
        assert.match(await mine.innerText(), new RegExp(rival.username));
        assert.equal(await page.getByTestId('league-board').locator('tbody tr').count(), 2);
        await screenshot(page, 'league-final-phone');
      },
      { viewport: 'phone' },
    );
  });
});
