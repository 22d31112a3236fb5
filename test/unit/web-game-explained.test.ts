// Issue 36, items 11 and 14: the words a rankings row explains itself with
// (the real formula of src/domain/rankings.ts), and the history's filters and
// page count over limit/offset pages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALPHA_SD_FLOOR, SKILL_Z, skillOf } from '../../src/domain/rankings.js';
import { filterBets, pageCount } from '../../web/src/lib/history-filter.js';
import { skillExplanation, skillParts } from '../../web/src/lib/skill.js';

test("two 0 % trades: the row says the margin alone makes the skill negative, with the service's own numbers", () => {
  const s = skillOf({ n: 2, sum: 0, sumSq: 0 });
  assert.ok(s);
  assert.equal(s.skill.toFixed(2), '-5.82');
  const lines = skillExplanation({ skill: s.skill, mean_alpha: s.mean_alpha, n: s.n });
  assert.equal(lines[0], 'Skill −5.82 pt = mean alpha 0.00 pt − a margin of 5.82 pt for 2 trades.');
  assert.ok(lines.some((l) => l.startsWith('The margin is 1.645 × 5 pt / √2')));
  assert.ok(lines.some((l) => l.includes('the margin alone makes the skill negative')));
});

test('the explanation recovers the spread s the service used, above the floor or at it', () => {
  assert.equal(SKILL_Z, 1.645);
  assert.equal(ALPHA_SD_FLOOR, 5);
  // Alphas 10 and 30: s ≈ 14.14, above the floor.
  const uneven = skillOf({ n: 2, sum: 40, sumSq: 100 + 900 });
  assert.ok(uneven);
  assert.ok(Math.abs(skillParts(uneven).s - uneven.s) < 1e-9);
  const lines = skillExplanation(uneven);
  assert.ok(
    lines.some((l) => l.startsWith('The margin is 1.645 × 14.14 pt / √2')),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => l.includes('margin alone')));
  // A positive mean the margin still outweighs.
  const thin = skillOf({ n: 1, sum: 2, sumSq: 4 });
  assert.ok(thin && thin.skill < 0);
  assert.ok(skillExplanation(thin).some((l) => l.includes('not yet by more than the margin')));
  assert.match(skillExplanation(thin)[0], /for 1 trade\.$/);
});

test('filters: status (a bet without one is closed) and a ticker typed in any case, anywhere in the symbol', () => {
  const bets = [
    { id: 1, ticker: 'ETH-USD', status: 'CLOSED' },
    { id: 2, ticker: 'BTC-USD', status: 'CANCELLED' },
    { id: 3, ticker: 'AAPL' },
    { id: 4, ticker: 'SETH', status: 'CANCELLED' },
  ];
  const ids = (xs: { id: number }[]) => xs.map((b) => b.id);
  assert.deepEqual(ids(filterBets(bets, 'ALL', '')), [1, 2, 3, 4]);
  assert.deepEqual(ids(filterBets(bets, 'CLOSED', '')), [1, 3]);
  assert.deepEqual(ids(filterBets(bets, 'CANCELLED', '')), [2, 4]);
  assert.deepEqual(ids(filterBets(bets, 'ALL', ' eth ')), [1, 4]);
  assert.deepEqual(ids(filterBets(bets, 'CANCELLED', 'eth')), [4]);
  assert.deepEqual(ids(filterBets(bets, 'ALL', 'zzz')), []);
});

test('pages: the last page holds the remainder, and never lies past the deepest offset the API answers', () => {
  assert.deepEqual(pageCount(45, 20, 10_000), { pages: 3, lastOffset: 40 });
  assert.deepEqual(pageCount(40, 20, 10_000), { pages: 2, lastOffset: 20 });
  assert.deepEqual(pageCount(0, 20, 10_000), { pages: 1, lastOffset: 0 });
  assert.deepEqual(pageCount(5_200, 20, 10_000), { pages: 260, lastOffset: 5_180 });
  // 50,000 bets: the API pages to offset 10,000 at most, so the last reachable page is the 501st.
  assert.deepEqual(pageCount(50_000, 20, 10_000), { pages: 501, lastOffset: 10_000 });
  assert.deepEqual(pageCount(50_000, 100, 10_000), { pages: 101, lastOffset: 10_000 });
});
