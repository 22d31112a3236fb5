// Driving leagues through the API in tests. Leagues last three days by
// default: sessions last seven, and tests move the clock past a league's end.
import assert from 'node:assert/strict';
import type { TestApp, TestUser } from './app.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export type Caller = TestUser | null;

/**
 * `scoringVersion: 1` makes every league `create` makes a version-1 league
 * (raw gains): such leagues can no longer be created through the API (only
 * those started before migration 0024 are), so the test writes the column,
 * as the migration did.
 */
export function leagueApi(t: () => TestApp, opts: { scoringVersion?: 1 | 2 } = {}) {
  const call = (u: Caller, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    t().app.inject({ method, url, headers: u ? { cookie: u.cookie } : {}, ...(payload ? { payload } : {}) });

  async function create(owner: TestUser, over: Record<string, unknown> = {}) {
    const now = t().clock.now();
    const res = await call(owner, 'POST', '/leagues', {
      name: 'Friday club',
      description: 'Friends trading',
      starts_at: new Date(now + HOUR).toISOString(),
      ends_at: new Date(now + 3 * DAY).toISOString(),
      visibility: 'private',
      rules: { instruments: 'all', min_closed_bets: 1, scoring: 'gain' },
      ...over,
    });
    assert.equal(res.statusCode, 201, res.body);
    if (opts.scoringVersion === 1) {
      await t().ctx.db.updateTable('leagues').set({ scoring_version: 1 }).where('id', '=', res.json().id).execute();
    }
    return res.json() as { id: number; invite_code: string; starts_at: string; ends_at: string; members: Array<{ id: number }> };
  }

  async function join(u: TestUser, code: string) {
    const res = await call(u, 'POST', '/leagues/join', { code });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  async function open(u: TestUser, ticker: string, direction: 'LONG' | 'SHORT' = 'LONG'): Promise<number> {
    const res = await call(u, 'POST', '/bet/open', { ticker, direction });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().bet_id;
  }

  async function close(u: TestUser, betId: number): Promise<number> {
    const res = await call(u, 'POST', '/bet/close', { bet_id: betId });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().gain_percent;
  }

  async function board(u: Caller, id: number) {
    const res = await call(u, 'GET', `/leagues/${id}/board`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  return { call, create, join, open, close, board };
}
