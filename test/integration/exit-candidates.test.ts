// The exit rules' watcher reads, in one statement a pass, the live rules a
// quote of the pass's span may fire (exitRuleCandidates), on both dialects:
// exactly those a quote of the span meets (levels met to the last bit
// included; a finished bet's rule, quotes outside the span and far levels
// left out), then only those rules' instruments' quotes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { percentageGain } from '../../src/domain/bets.js';
import { exitReached } from '../../src/domain/exits.js';
import { exitRuleCandidates, saveExitRule } from '../../src/repositories/exit-rules.js';
import { appendQuote } from '../../src/repositories/quotes.js';
import { exitRulesWatcher } from '../../src/services/exit-rules.js';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { seededRandom } from '../helpers/adversary.js';
import { forEachDialect } from '../helpers/db.js';
import { insertOpenBet } from '../helpers/messaging.js';

const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'SPY', 'AMZN', 'META', 'GOOGL'];

forEachDialect('exit rule candidates', (dialect) => {
  let t: TestApp;
  let statements: string[] | null = null;
  before(async () => {
    t = await createTestApp(dialect, { onQuery: (s) => statements?.push(s) });
  });
  after(() => t.close());

  async function bet(userId: number, ticker: string, direction: 'LONG' | 'SHORT', entry: number): Promise<number> {
    const row = await insertOpenBet(t, userId, ticker, direction);
    await t.ctx.db.updateTable('bets').set({ entry_price: entry }).where('id', '=', row.id).execute();
    return row.id;
  }
  test('exactly the live rules a quote of the span meets: levels met exactly, both directions; not a finished bet, a quote outside the span or a far level', async () => {
    const u = await registerAndLogin(t.app, 'xc');
    const next = seededRandom(dialect === 'sqlite' ? 7 : 11);
    const from = t.clock.now();
    const until = from + 60_000;
    const inSpan = new Map<string, number[]>();
    for (const ticker of TICKERS.slice(0, 4)) {
      const prices: number[] = [];
      for (let i = 1; i <= 12; i++) {
        const price = Math.round((90 + next() * 20) * 100) / 100;
        prices.push(price);
        await appendQuote(t.ctx.db, ticker, { price, at: from + i * 5_000 });
      }
      inSpan.set(ticker, prices);
      // At the span's edges, outside it: prices that would meet every level.
      await appendQuote(t.ctx.db, ticker, { price: 1, at: from });
      await appendQuote(t.ctx.db, ticker, { price: 10_000, at: until + 1 });
    }
    const rules: Array<{
      id: number;
      ticker: string;
      direction: 'LONG' | 'SHORT';
      entry: number;
      stop_loss: number | null;
      take_profit: number | null;
    }> = [];
    for (let i = 0; i < 120; i++) {
      const ticker = TICKERS[i % 4]!;
      const direction = i % 2 === 0 ? 'LONG' : 'SHORT';
      const entry = Math.round((90 + next() * 20) * 100) / 100;
      let stop_loss: number | null = next() < 0.8 ? -Math.round((0.01 + next() * 40) * 100) / 100 : null;
      let take_profit: number | null = next() < 0.8 || stop_loss === null ? Math.round((0.01 + next() * 40) * 100) / 100 : null;
      // A third of the rules stand exactly at the gain of one of the span's quotes.
      if (i % 3 === 0) {
        const prices = inSpan.get(ticker)!;
        const gain = percentageGain(direction, entry, prices[Math.floor(next() * prices.length)]!);
        if (gain < 0) stop_loss = gain;
        else if (gain > 0) take_profit = gain;
      }
      const id = await bet(u.id, ticker, direction, entry);
      await saveExitRule(t.ctx.db, { bet_id: id, ticker, stop_loss, take_profit, set_at: from - 1_000 });
      rules.push({ id, ticker, direction, entry, stop_loss, take_profit });
    }
    // A finished bet's rule that every quote meets.
    const closed = await bet(u.id, 'AAPL', 'LONG', 100);
    await saveExitRule(t.ctx.db, { bet_id: closed, ticker: 'AAPL', stop_loss: -99, take_profit: 0.01, set_at: from - 1_000 });
    await t.ctx.db.updateTable('bets').set({ status: 'CLOSED' }).where('id', '=', closed).execute();

    try {
      const expected = rules
        .filter((r) => inSpan.get(r.ticker)!.some((price) => exitReached(r.direction, r.entry, r, price) !== null))
        .map((r) => r.id)
        .sort((a, b) => a - b);
      const got = (await exitRuleCandidates(t.ctx.db, from, until)).filter((c) => c.set_at === from - 1_000);
      assert.ok(expected.length > 20 && expected.length < rules.length - 20, `a mix of met and unmet rules (${expected.length} of ${rules.length})`);
      assert.deepEqual(
        got.map((c) => c.bet_id).sort((a, b) => a - b),
        expected,
      );
      const one = got.find((c) => c.bet_id === rules[0]!.id);
      if (one) {
        const r = rules[0]!;
        assert.deepEqual(
          {
            direction: one.direction,
            entry_price: one.entry_price,
            stop_loss: one.stop_loss,
            take_profit: one.take_profit,
            settle_at: one.settle_at,
          },
          { direction: r.direction, entry_price: r.entry, stop_loss: r.stop_loss, take_profit: r.take_profit, settle_at: null },
        );
      }
    } finally {
      // These rules' bets finished: the next test's passes do not see them.
      await t.ctx.db.updateTable('bets').set({ status: 'CLOSED' }).where('user_id', '=', u.id).execute();
    }
  });

  test('a pass reads the rules in one statement whatever the number of instruments, and the quotes of a candidate’s instrument only', async () => {
    const u = await registerAndLogin(t.app, 'xs');
    const watcher = exitRulesWatcher(t.ctx);
    const signal = new AbortController().signal;
    t.clock.advance(600_000);
    const setAt = t.clock.now();
    let near = 0;
    for (const ticker of TICKERS) {
      for (let i = 0; i < 3; i++) {
        const id = await bet(u.id, ticker, 'LONG', 100);
        await saveExitRule(t.ctx.db, { bet_id: id, ticker, stop_loss: -50, take_profit: 50, set_at: setAt });
      }
      if (ticker === 'NVDA') {
        near = await bet(u.id, ticker, 'LONG', 100);
        await saveExitRule(t.ctx.db, { bet_id: near, ticker, stop_loss: -50, take_profit: 5, set_at: setAt });
      }
    }
    const publishAll = async (nvda: number) => {
      t.clock.advance(5_000);
      for (const ticker of TICKERS) await appendQuote(t.ctx.db, ticker, { price: ticker === 'NVDA' ? nvda : 101, at: t.clock.now() });
    };
    const counted = async () => {
      statements = [];
      try {
        const done = await watcher.evaluate(TICKERS, t.clock.now(), signal);
        return { done, reads: statements.filter((s) => /^\s*select/i.test(s)) };
      } finally {
        statements = null;
      }
    };
    await publishAll(101);
    // The first pass also finds the earliest live rule's last change, where its span starts.
    const first = await counted();
    assert.deepEqual(first.done, { fired: 0, failures: [] });
    assert.equal(first.reads.length, 2, first.reads.join('\n'));
    await publishAll(102);
    const quiet = await counted();
    assert.deepEqual(quiet.done, { fired: 0, failures: [] });
    assert.equal(quiet.reads.length, 1, `one statement for ${TICKERS.length} instruments' rules:\n${quiet.reads.join('\n')}`);
    await publishAll(105.5);
    const crossing = await counted();
    assert.deepEqual(crossing.done, { fired: 1, failures: [] });
    // A span's quotes (quotesBetween); the close itself reads the quote at or after an instant, with no upper bound.
    const quoteReads = crossing.reads.filter((s) => /from "quotes"/i.test(s) && /"published_at" <=/i.test(s) && !/min\(/i.test(s));
    assert.equal(quoteReads.length, 1, 'the quotes of NVDA alone');
    const closedBet = await t.ctx.db
      .selectFrom('bets')
      .select(['status', 'close_reason', 'exit_price'])
      .where('id', '=', near)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      { ...closedBet, exit_price: Number(closedBet.exit_price) },
      { status: 'CLOSED', close_reason: 'take_profit', exit_price: 105.5 },
    );
  });

  test('after a spell with nothing live, the next rule is evaluated from its own setting, not from the last pass before the spell', async () => {
    await t.ctx.db.updateTable('bets').set({ status: 'CLOSED' }).where('status', '=', 'OPEN').execute();
    const u = await registerAndLogin(t.app, 'xq');
    const watcher = exitRulesWatcher(t.ctx);
    const signal = new AbortController().signal;
    const first = await bet(u.id, 'TSLA', 'LONG', 100);
    await saveExitRule(t.ctx.db, { bet_id: first, ticker: 'TSLA', stop_loss: -50, take_profit: 50, set_at: t.clock.now() });
    t.clock.advance(5_000);
    await appendQuote(t.ctx.db, 'TSLA', { price: 101, at: t.clock.now() });
    assert.deepEqual(await watcher.evaluate(['TSLA'], t.clock.now(), signal), { fired: 0, failures: [] });
    await t.ctx.db.updateTable('bets').set({ status: 'CLOSED' }).where('id', '=', first).execute();
    // The job hands a watcher with nothing live no tickers; meanwhile the price went far and came back.
    assert.deepEqual(await watcher.evaluate([], t.clock.now(), signal), { fired: 0, failures: [] });
    t.clock.advance(30 * 60_000);
    await appendQuote(t.ctx.db, 'TSLA', { price: 200, at: t.clock.now() });
    t.clock.advance(30 * 60_000);
    const next = await bet(u.id, 'TSLA', 'LONG', 100);
    await saveExitRule(t.ctx.db, { bet_id: next, ticker: 'TSLA', stop_loss: -50, take_profit: 50, set_at: t.clock.now() });
    t.clock.advance(5_000);
    await appendQuote(t.ctx.db, 'TSLA', { price: 101, at: t.clock.now() });
    statements = [];
    let done: Awaited<ReturnType<typeof watcher.evaluate>>;
    try {
      done = await watcher.evaluate(['TSLA'], t.clock.now(), signal);
    } finally {
      const quoteReads = statements.filter((s) => /from "quotes"/i.test(s) && /"published_at" <=/i.test(s) && !/min\(/i.test(s));
      statements = null;
      assert.equal(quoteReads.length, 0, 'the quote of an hour ago, before the rule, is not in its span');
    }
    assert.deepEqual(done, { fired: 0, failures: [] });
  });
});
