// The benchmark population's rows: exact counts for the special users, bets
// consistent with DESIGN's rules, and nobody following the trader.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BET_COLUMNS, CHAT_LINK_COLUMNS, FOLLOW_COLUMNS, Population, type Row } from '../../bench/lib/dataset.js';
import { percentageGain } from '../../src/domain/bets.js';
import { PRESETS } from '../../bench/lib/presets.js';
import { FIRST_ORDINARY_ID, PORTFOLIO_OPEN_BETS, ROLES } from '../../bench/lib/roles.js';
import { svgChart, type Report } from '../../bench/lib/report.js';

const NOW = Date.parse('2026-11-22T04:00:00Z');
const bet = (row: Row) => Object.fromEntries(BET_COLUMNS.map((c, i) => [c, row[i]])) as Record<string, string | number | null>;

describe('bench population', () => {
  const people = new Population(PRESETS.tiny, NOW);
  const finished = [...people.finishedBets()].map(bet);
  const open = [...people.openBets()].map(bet);
  const follows = [...people.follows()];

  test("has the preset's counts, ids in time order, and the same rows on every run", () => {
    assert.equal(finished.length, PRESETS.tiny.finishedBets);
    assert.equal(open.length, people.openBetCount());
    assert.equal(follows.length, people.followCount());
    assert.deepEqual(
      [...finished, ...open].map((b) => b.id),
      Array.from({ length: finished.length + open.length }, (_, i) => i + 1),
    );
    for (let i = 1; i < finished.length; i++) assert.ok((finished[i].opened_at as number) >= (finished[i - 1].opened_at as number));
    assert.deepEqual([...new Population(PRESETS.tiny, NOW).finishedBets()].slice(0, 50), [...people.finishedBets()].slice(0, 50));
  });

  test('gives the special users exactly what their measurement needs', () => {
    const count = (rows: typeof finished, id: number) => rows.filter((b) => b.user_id === id).length;
    assert.equal(count(finished, ROLES.history.id), PRESETS.tiny.historyBets);
    assert.equal(count(open, ROLES.portfolio.id), PORTFOLIO_OPEN_BETS);
    assert.equal(count(finished, ROLES.trader.id) + count(open, ROLES.trader.id), 0);
    const followed = (id: number) => follows.filter((f) => f[FOLLOW_COLUMNS.indexOf('followed_id')] === id).length;
    const following = (id: number) => follows.filter((f) => f[FOLLOW_COLUMNS.indexOf('follower_id')] === id).length;
    assert.equal(followed(ROLES.trader.id), 0);
    assert.equal(followed(ROLES.popular.id), 50);
    assert.equal(following(ROLES.feed.id), 50);
    assert.equal(following(ROLES.follower.id), 0);
    const pairs = follows.map((f) => `${f[0]}>${f[1]}`);
    assert.equal(new Set(pairs).size, pairs.length, 'no duplicate follow');
    assert.ok(
      follows.every((f) => f[0] !== f[1]),
      'nobody follows themselves',
    );
    const perUser = new Map<unknown, number>();
    for (const b of open) perUser.set(b.user_id, (perUser.get(b.user_id) ?? 0) + 1);
    assert.ok(Math.max(...perUser.values()) <= 10, 'no one above the base bet capacity');
  });

  test("the fan-out's traders have the preset's counts of followers, every one with a linked chat; the trader has none", () => {
    const [mid, large] = PRESETS.tiny.fanOut;
    const followersOf = (id: number) => follows.filter((f) => f[FOLLOW_COLUMNS.indexOf('followed_id')] === id).map((f) => f[0] as number);
    const linked = new Set([...people.chatLinks()].map((l) => l[CHAT_LINK_COLUMNS.indexOf('user_id')] as number));
    assert.equal(followersOf(ROLES.fanOutMid.id).length, mid);
    assert.equal(followersOf(ROLES.fanOutLarge.id).length, large);
    for (const id of [...followersOf(ROLES.fanOutLarge.id), ...followersOf(ROLES.popular.id)])
      assert.ok(linked.has(id), `follower ${id} has no chat`);
    assert.equal(linked.size, people.chatLinkCount());
    assert.equal(followersOf(ROLES.trader.id).length, 0);
  });

  test('the spread writes get ordinary traders free to follow, spread over the ids, none repeated', () => {
    const traders = people.traders(64);
    assert.equal(new Set(traders).size, 64);
    const group = people.followerGroup();
    for (const id of traders) {
      assert.ok(id >= FIRST_ORDINARY_ID && id <= PRESETS.tiny.users, String(id));
      assert.ok(!group.has(id), `trader ${id} already follows ${PRESETS.tiny.followsEach}`);
    }
    assert.ok(Math.max(...traders) > PRESETS.tiny.users * 0.8, 'spread to the least active');
    assert.throws(() => people.traders(PRESETS.tiny.users), /free to trade/);
    const full = new Population(PRESETS.full, NOW).traders(64);
    assert.equal(new Set(full).size, 64);
  });

  test('finished bets follow DESIGN: cancelled at 0 % with exit = entry, closed by the gain formula, all in the past', () => {
    const cancelled = finished.filter((b) => b.status === 'CANCELLED');
    const closed = finished.filter((b) => b.status === 'CLOSED');
    assert.ok(cancelled.length > 0 && closed.length > cancelled.length);
    for (const b of cancelled) {
      assert.equal(b.exit_price, b.entry_price);
      assert.equal(b.percentage_gain, 0);
      assert.ok((b.closed_at as number) - (b.opened_at as number) <= 5 * 60_000);
    }
    for (const b of closed) {
      const gain = percentageGain(b.direction as 'LONG' | 'SHORT', b.entry_price as number, b.exit_price as number);
      assert.equal(b.percentage_gain, gain);
    }
    for (const b of finished) {
      assert.equal(b.last_event_at, b.closed_at);
      assert.ok((b.closed_at as number) < NOW && (b.closed_at as number) > (b.opened_at as number));
    }
    for (const b of open) {
      assert.equal(b.status, 'OPEN');
      assert.equal(b.exit_price, null);
      assert.equal(b.last_event_at, b.opened_at);
      assert.ok(NOW - (b.opened_at as number) > 5 * 60_000, 'past the cancellation window');
    }
  });

  test('ordinary users start after the special ones', () => {
    const ids = Object.values(ROLES).map((r) => r.id);
    assert.deepEqual(
      ids,
      Array.from({ length: FIRST_ORDINARY_ID - 1 }, (_, i) => i + 1),
    );
  });
});

describe('bench chart', () => {
  test('escapes labels and draws one row per endpoint plus the baseline', () => {
    const report = {
      meta: { dialect: 'sqlite', size: 'tiny', connections: 4, durationS: 1 },
      baseline: { requestsPerSecond: 1000, p50Ms: 1, p99Ms: 2 },
      results: [
        {
          key: 'h',
          label: 'GET /history?limit=100&offset=5000',
          unit: 'request',
          status: 'ok',
          target: null,
          pass: null,
          measured: { perSecond: 300, requestsPerSecond: 300, p50Ms: 3, p99Ms: 9, ratio: 0.3, peakRssMb: 90, statusCounts: {}, errors: 0 },
        },
        { key: 'f', label: 'GET /feed', unit: 'request', status: 'not available', target: null, pass: null },
      ],
    } as unknown as Report;
    const svg = svgChart(report);
    assert.match(svg, /limit=100&amp;offset=5000/);
    assert.doesNotMatch(svg, /&offset/);
    assert.equal((svg.match(/<rect /g) ?? []).length, 1 + 2);
    assert.match(svg, /not available/);
  });
});
