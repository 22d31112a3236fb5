// What the app says about scoring (issue 33, docs/rankings.md): which board a
// page shows, the committed instant of a bet, why a bet is not ranked, and a
// league's scoring version. Pure, so Node tests load it.

/** Ranked gains (committed price → exit) lead; the raw board is SPEC's GET /leaderboard. */
export type Board = 'ranked' | 'raw';

export const BOARD_LABELS: Record<Board, string> = {
  ranked: 'Ranked gains',
  raw: "Raw gains: every close counts, as the API's /leaderboard",
};

/** The board in a page's query: `board=raw` is the raw board; anything else, or nothing, the ranked one. */
export function parseBoard(params: URLSearchParams): Board {
  return params.get('board') === 'raw' ? 'raw' : 'ranked';
}

/**
 * The query of the same page showing `board`: its window stays, its page goes
 * (another board is another order, so it opens at its top). The ranked board,
 * the default, leaves `board` out so plain links stay plain.
 */
export function boardSearch(params: URLSearchParams, board: Board): string {
  const copy = new URLSearchParams(params);
  copy.delete('offset');
  if (board === 'raw') copy.set('board', 'raw');
  else copy.delete('board');
  const s = copy.toString();
  return s === '' ? '' : `?${s}`;
}

/** The cancel window (SPEC: a bet may be cancelled within 5 minutes of opening). */
export const CANCEL_WINDOW_MS = 5 * 60_000;

/** A bet's committed instant, the end of its cancel window, for a server that does not say it (ISO). */
export function committedInstantOf(entryDate: string): string | null {
  const t = Date.parse(entryDate);
  return Number.isNaN(t) ? null : new Date(t + CANCEL_WINDOW_MS).toISOString();
}

/** Where a bet stands for the ranked boards (GET /bet/{id} `ranked`). */
export type RankedState = 'pending' | 'ranked' | 'early' | 'cancelled' | 'unranked';

/**
 * One line on why a bet has no ranked gain; null for a ranked bet (and for a
 * state the server does not name yet). `reason` is the server's own words for
 * an unranked bet (say, data that did not open at the market's quote);
 * `committed`: a pending bet already has its committed price.
 */
export function unrankedLine(state: RankedState | undefined, reason: string | null | undefined, committed = false): string | null {
  switch (state) {
    case 'pending':
      return committed
        ? 'Ranked once it ends: its ranked gain runs from the committed price to the exit.'
        : 'Not ranked yet: its ranked gain starts at the committed price, once the cancel window has ended.';
    case 'early':
      return 'Not ranked: it ended inside its cancel window, before the committed instant, when it could still have been cancelled.';
    case 'cancelled':
      return 'Not ranked: cancelled bets never count.';
    case 'unranked':
      return reason ? `Not ranked: ${reason}` : 'Not ranked.';
    default:
      return null;
  }
}

/** A league board's scoring (GET /leagues/{id}/board `scoring_version`), in words. */
export function scoringVersionText(version: number | null | undefined): string | null {
  if (version === 1) return 'raw gains (this league started before ranked scoring)';
  if (version === 2) return 'ranked gains';
  return null;
}
