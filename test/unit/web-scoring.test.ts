// The web app's words and URL rules for scoring (web/src/lib/scoring.ts): which
// board a query shows, the link to the other board, the committed instant, why
// a bet is not ranked, and a league's scoring version.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BOARD_LABELS, boardSearch, committedInstantOf, parseBoard, scoringVersionText, unrankedLine } from '../../web/src/lib/scoring.js';

describe('web scoring helpers', () => {
  test('the ranked board is the default; only board=raw shows the raw one', () => {
    assert.equal(parseBoard(new URLSearchParams('')), 'ranked');
    assert.equal(parseBoard(new URLSearchParams('board=raw')), 'raw');
    assert.equal(parseBoard(new URLSearchParams('board=ranked')), 'ranked');
    assert.equal(parseBoard(new URLSearchParams('board=RAW')), 'ranked');
    assert.equal(parseBoard(new URLSearchParams('period=7d&board=raw&offset=100')), 'raw');
  });

  test("the other board's link keeps the window, drops the page, and leaves the default out", () => {
    assert.equal(boardSearch(new URLSearchParams(''), 'raw'), '?board=raw');
    assert.equal(boardSearch(new URLSearchParams(''), 'ranked'), '');
    assert.equal(boardSearch(new URLSearchParams('board=raw'), 'ranked'), '');
    assert.equal(boardSearch(new URLSearchParams('period=7d&min_trades=2&offset=200'), 'raw'), '?period=7d&min_trades=2&board=raw');
    assert.equal(boardSearch(new URLSearchParams('board=raw&period=30d&offset=100'), 'ranked'), '?period=30d');
    assert.equal(boardSearch(new URLSearchParams('board=raw&period=30d'), 'raw'), '?board=raw&period=30d');
  });

  test('the raw board is labelled plainly, as the API names it', () => {
    assert.equal(BOARD_LABELS.raw, "Raw gains: every close counts, as the API's /leaderboard");
    assert.equal(BOARD_LABELS.ranked, 'Ranked gains');
  });

  test('the committed instant is the end of the 5-minute cancel window', () => {
    assert.equal(committedInstantOf('2026-11-28T18:00:00.000Z'), '2026-11-28T18:05:00.000Z');
    assert.equal(committedInstantOf('2026-11-28T23:57:30Z'), '2026-11-29T00:02:30.000Z');
    assert.equal(committedInstantOf('not a date'), null);
  });

  test('one line on why a bet is not ranked; none for a ranked bet or an unknown state', () => {
    assert.equal(unrankedLine('ranked', null), null);
    assert.equal(unrankedLine(undefined, null), null);
    assert.match(unrankedLine('pending', null) ?? '', /^Not ranked yet: .*committed price/);
    assert.match(unrankedLine('pending', null, true) ?? '', /^Ranked once it ends/);
    assert.match(unrankedLine('early', null) ?? '', /^Not ranked: it ended inside its cancel window/);
    assert.equal(unrankedLine('cancelled', null), 'Not ranked: cancelled bets never count.');
    assert.equal(
      unrankedLine('unranked', 'opened at a price that was not the market quote'),
      'Not ranked: opened at a price that was not the market quote',
    );
    assert.equal(unrankedLine('unranked', null), 'Not ranked.');
    for (const state of ['pending', 'early', 'cancelled', 'unranked'] as const) assert.ok(!unrankedLine(state, 'x')?.includes('\n'), state);
  });

  test("a league board's scoring version in words", () => {
    assert.equal(scoringVersionText(1), 'raw gains (this league started before ranked scoring)');
    assert.equal(scoringVersionText(2), 'ranked gains');
    assert.equal(scoringVersionText(undefined), null);
    assert.equal(scoringVersionText(3), null);
  });
});
