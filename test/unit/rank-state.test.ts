// rankState: where a bet stands for the ranked scores (GET /bet/{bet_id}'s `ranked`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { endedEarly, type RankFacts, rankState } from '../../src/domain/bets.js';

const M = 60_000;
const T = 1_000 * M;
const facts = (over: Partial<RankFacts>): RankFacts => ({
  status: 'OPEN',
  opened_at: T,
  closed_at: null,
  ranked_gain: null,
  unranked_reason: null,
  ...over,
});

describe('rankState', () => {
  test('an OPEN bet is pending, committed or not', () => {
    assert.equal(rankState(facts({})), 'pending');
    assert.equal(rankState(facts({ ranked_gain: null })), 'pending');
  });

  test('a close with a ranked gain is ranked, whatever its sign', () => {
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 6 * M, ranked_gain: 1.5 })), 'ranked');
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 6 * M, ranked_gain: -2 })), 'ranked');
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 6 * M, ranked_gain: 0 })), 'ranked', 'zero is a gain, not its absence');
  });

  test('a close (by hand or settled) before the committed instant is early; at it, not', () => {
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 10_000 })), 'early');
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 5 * M - 1 })), 'early');
    assert.equal(endedEarly(T, T + 5 * M - 1), true);
    assert.equal(endedEarly(T, T + 5 * M), false);
  });

  test('a cancelled bet is cancelled, even one marked unranked', () => {
    assert.equal(rankState(facts({ status: 'CANCELLED', closed_at: T + M })), 'cancelled');
    assert.equal(rankState(facts({ status: 'CANCELLED', closed_at: T + M, unranked_reason: 'entry_not_quoted' })), 'cancelled');
  });

  test('a bet with an unranked reason is unranked, open or closed, early or not', () => {
    assert.equal(rankState(facts({ unranked_reason: 'entry_not_quoted' })), 'unranked');
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 10_000, unranked_reason: 'entry_not_quoted' })), 'unranked');
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 60 * M, unranked_reason: 'entry_not_quoted' })), 'unranked');
  });

  test('a close after its instant without a ranked gain (never committed) is unranked', () => {
    assert.equal(rankState(facts({ status: 'CLOSED', closed_at: T + 60 * M })), 'unranked');
  });
});
