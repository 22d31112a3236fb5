// The bet side of the crash loop: users with linked Telegram chats open,
// close and follow; settlement times pass while the server is down; and at
// the end every bet is whole, every aggregate matches its bets, every record
// chain verifies, settlement and the outbox caught up, and every notice
// reached the (fake) Telegram, twice only across a kill.
import assert from 'node:assert/strict';
import SQLite from 'better-sqlite3';
import { percentageGain } from '../../src/domain/bets.js';
import { type ChainEntry, verifyChain } from '../../src/domain/record.js';
import { PASSWORD, uniqueName } from './app.js';
import { waitUntil } from './cluster.js';
import type { CrashScenario, WriteDriver } from './crash.js';
import { FakeTelegram } from './fake-telegram.js';
import { newChatId, noticeKey } from './bot-notices.js';
import { textUpdate } from './messaging.js';

const WEBHOOK_SECRET = 'crash-webhook-secret';
const USERS = 4;
const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'BTC-USD', 'ETH-USD', 'SPY'];

interface Trader {
  id: number;
  cookie: string;
  chatId: number;
}

interface BetRow {
  id: number;
  user_id: number;
  ticker: string;
  direction: 'LONG' | 'SHORT';
  status: 'OPEN' | 'CLOSED' | 'CANCELLED';
  entry_price: number;
  exit_price: number | null;
  percentage_gain: number | null;
  closed_at: number | null;
  opened_at: number;
  close_reason: string | null;
  target_date: string | null;
  settle_at: number | null;
}

/** T is the JSON the caller expects on success. */
async function call<T = unknown>(
  base: string,
  method: string,
  path: string,
  cookie: string | null,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(cookie ? { cookie } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

function bets(db: SQLite.Database): BetRow[] {
  return db.prepare('select * from bets order by id').all() as BetRow[];
}

/** What a bet row must look like in each state. */
function betProblems(b: BetRow): string[] {
  const p: string[] = [];
  if (b.status === 'OPEN') {
    if (b.exit_price !== null || b.percentage_gain !== null || b.closed_at !== null || b.close_reason !== null)
      p.push(`bet ${b.id}: OPEN with an exit`);
  } else if (b.status === 'CLOSED') {
    if (b.exit_price === null || b.percentage_gain === null || b.closed_at === null) p.push(`bet ${b.id}: CLOSED without its exit`);
    else if (Math.abs(b.percentage_gain - percentageGain(b.direction, b.entry_price, b.exit_price)) > 1e-9)
      p.push(`bet ${b.id}: gain does not match its prices`);
    if (b.close_reason !== 'user' && b.close_reason !== 'settlement') p.push(`bet ${b.id}: closed for "${b.close_reason}"`);
  } else p.push(`bet ${b.id}: unexpected status ${b.status}`);
  return p;
}

/** The leaderboard aggregate equals the sum over each user's closed bets. */
function aggregateProblems(db: SQLite.Database, all: BetRow[]): string[] {
  const p: string[] = [];
  const rows = db.prepare('select user_id, total_score, total_trades from leaderboard').all() as Array<{
    user_id: number;
    total_score: number;
    total_trades: number;
  }>;
  const byUser = new Map(rows.map((r) => [r.user_id, r]));
  const users = new Set([...all.map((b) => b.user_id), ...byUser.keys()]);
  for (const u of users) {
    const closed = all.filter((b) => b.user_id === u && b.status === 'CLOSED');
    const row = byUser.get(u) ?? { total_score: 0, total_trades: 0 };
    const sum = closed.reduce((s, b) => s + b.percentage_gain!, 0);
    if (row.total_trades !== closed.length || Math.abs(row.total_score - sum) > 1e-6) {
      p.push(`user ${u}: leaderboard ${row.total_trades} trades / ${row.total_score}, bets ${closed.length} / ${sum}`);
    }
  }
  return p;
}

/** Every user's record chain links, hashes, and ends at each bet's current state. */
function recordProblems(db: SQLite.Database, all: BetRow[]): string[] {
  const p: string[] = [];
  const entries = db.prepare('select user_id, seq, event, prev_hash, hash from record_entries order by user_id, seq').all() as Array<{
    user_id: number;
    seq: number;
    event: string;
    prev_hash: string;
    hash: string;
  }>;
  const users = new Set([...all.map((b) => b.user_id), ...entries.map((e) => e.user_id)]);
  for (const u of users) {
    const chain: ChainEntry[] = entries.filter((e) => e.user_id === u).map((e) => ({ ...e, event: JSON.parse(e.event) }));
    p.push(
      ...verifyChain(
        u,
        chain,
        all.filter((b) => b.user_id === u),
      ).map((x) => `user ${u}: ${x}`),
    );
  }
  return p;
}

/**
 * Follower notices were written with their bet: the opening notice of a bet
 * went to exactly the followers whose follow came before the open (a follow
 * in the same millisecond may go either way), and a settled bet has its
 * owner's settlement notice.
 */
function noticeProblems(db: SQLite.Database, all: BetRow[]): string[] {
  const p: string[] = [];
  const follows = db.prepare('select follower_id, followed_id, created_at from follows').all() as Array<{
    follower_id: number;
    followed_id: number;
    created_at: number;
  }>;
  const notices = db.prepare("select user_id, kind, bet_id from notifications where kind in ('bet_opened', 'bet_settled')").all() as Array<{
    user_id: number;
    kind: string;
    bet_id: number;
  }>;
  for (const b of all) {
    const got = new Set(notices.filter((n) => n.bet_id === b.id && n.kind === 'bet_opened').map((n) => n.user_id));
    for (const f of follows.filter((x) => x.followed_id === b.user_id)) {
      if (f.created_at < b.opened_at && !got.has(f.follower_id)) p.push(`bet ${b.id}: no opening notice for follower ${f.follower_id}`);
      if (f.created_at > b.opened_at && got.has(f.follower_id)) p.push(`bet ${b.id}: opening notice for ${f.follower_id}, who followed later`);
    }
    const settled = notices.some((n) => n.bet_id === b.id && n.kind === 'bet_settled' && n.user_id === b.user_id);
    if ((b.close_reason === 'settlement') !== settled) p.push(`bet ${b.id}: closed for ${b.close_reason} but settlement notice ${settled}`);
  }
  return p;
}

function withDb<T>(file: string, fn: (db: SQLite.Database) => T): T {
  const db = new SQLite(file, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export interface BetCrashScenario extends CrashScenario {
  telegram: FakeTelegram;
  /** Bet notices that were sent more than once. */
  duplicates(): number;
  /** What the final check saw. */
  stats: { bets: number; settled: number; closedByUser: number; notices: number; kills: number };
  stop(): Promise<void>;
}

export async function betScenario(): Promise<BetCrashScenario> {
  const telegram = await new FakeTelegram().start();
  const traders: Trader[] = [];
  /** Bets acknowledged open and not yet seen closed, with their owner. */
  const openBets: Array<{ id: number; owner: Trader }> = [];
  /** Positions in telegram.calls at which a server was killed. */
  const kills: number[] = [];
  const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

  const opens: WriteDriver = {
    name: 'open',
    async write(base) {
      const t = pick(traders);
      const body = {
        ticker: pick(TICKERS),
        direction: Math.random() < 0.5 ? 'LONG' : 'SHORT',
        // Half settle automatically: target today (the loop moves their settlement time while the server is down).
        ...(Math.random() < 0.5 ? { target_date: new Date().toISOString().slice(0, 10) } : {}),
      };
      const res = await call<{ bet_id: number }>(base, 'POST', '/bet/open', t.cookie, body);
      if (res.status === 403) return null;
      if (res.status !== 200) throw new Error(`open: ${res.status} ${JSON.stringify(res.body)}`);
      openBets.push({ id: res.body.bet_id, owner: t });
      return String(res.body.bet_id);
    },
    missing(db, keys) {
      const have = new Set(bets(db).map((b) => String(b.id)));
      return keys.filter((k) => !have.has(k));
    },
    broken(db) {
      const all = bets(db);
      return [...all.flatMap(betProblems), ...aggregateProblems(db, all), ...recordProblems(db, all), ...noticeProblems(db, all)];
    },
  };

  const closes: WriteDriver = {
    name: 'close',
    async write(base) {
      // With nothing to close, a close of a bet that does not exist (refused, 400).
      const bet = openBets.length > 0 ? openBets.splice(Math.floor(Math.random() * openBets.length), 1)[0]! : { id: 2 ** 40, owner: pick(traders) };
      const res = await call(base, 'POST', '/bet/close', bet.owner.cookie, { bet_id: bet.id });
      // 400: settled meanwhile, or closed by a request whose answer a kill cut off.
      if (res.status === 400) return null;
      if (res.status !== 200) {
        openBets.push(bet);
        throw new Error(`close: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return String(bet.id);
    },
    missing(db, keys) {
      const closedByUser = new Set(
        bets(db)
          .filter((b) => b.status === 'CLOSED' && b.close_reason === 'user')
          .map((b) => String(b.id)),
      );
      return keys.filter((k) => !closedByUser.has(k));
    },
    broken: () => [],
  };

  const follows: WriteDriver = {
    name: 'follow',
    async write(base) {
      const a = pick(traders);
      const b = pick(traders.filter((x) => x !== a));
      const res = await call(base, 'POST', '/follow', a.cookie, { followed_id: b.id, action: 'follow' });
      if (res.status !== 200) throw new Error(`follow: ${res.status} ${JSON.stringify(res.body)}`);
      return `${a.id}>${b.id}`;
    },
    missing(db, keys) {
      const rows = db.prepare('select follower_id, followed_id from follows').all() as Array<{ follower_id: number; followed_id: number }>;
      const have = new Set(rows.map((r) => `${r.follower_id}>${r.followed_id}`));
      return keys.filter((k) => !have.has(k));
    },
    broken: () => [],
  };

  const scenario: BetCrashScenario = {
    telegram,
    drivers: [opens, opens, closes, follows],
    env: {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_URL: telegram.url,
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      SETTLEMENT_INTERVAL_SECONDS: '1',
    },
    async setup(base) {
      for (let i = 0; i < USERS; i++) {
        const username = uniqueName('crashbets');
        const email = `${username}@example.test`;
        assert.equal((await call(base, 'POST', '/register', null, { username, email, password: PASSWORD })).status, 201);
        const res = await fetch(`${base}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email, password: PASSWORD }),
        });
        const cookie = /auth_token=[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
        const id = ((await res.json()) as { id: number }).id;
        const code = await call<{ code: string }>(base, 'POST', '/chat/link-code', cookie);
        const chatId = newChatId();
        const hook = await fetch(`${base}/chat/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
          body: JSON.stringify(textUpdate(chatId, `/start ${code.body.code}`)),
        });
        assert.equal(hook.status, 200);
        traders.push({ id, cookie, chatId });
      }
      // Notices from the first write on, whatever the random writes turn out
      // to be: each trader follows the next, and each opens a bet that may
      // settle while the server is down.
      for (const [i, t] of traders.entries()) {
        const next = traders[(i + 1) % traders.length]!;
        assert.equal((await call(base, 'POST', '/follow', t.cookie, { followed_id: next.id, action: 'follow' })).status, 200);
      }
      const today = new Date().toISOString().slice(0, 10);
      for (const t of traders) {
        const res = await call<{ bet_id: number }>(base, 'POST', '/bet/open', t.cookie, {
          ticker: pick(TICKERS),
          direction: 'LONG',
          target_date: today,
        });
        assert.equal(res.status, 200);
        openBets.push({ id: res.body.bet_id, owner: t });
      }
    },
    whileDown(file, rand) {
      const db = new SQLite(file);
      try {
        const now = Date.now();
        // Time passes: some bets reach their settlement time; leases of the dead process run out.
        const due = db.prepare("select id from bets where status = 'OPEN' and target_date is not null").all() as Array<{ id: number }>;
        const mark = db.prepare('update bets set settle_at = ? where id = ?');
        for (const { id } of due) if (rand() < 0.5) mark.run(now - 1000, id);
        db.prepare("update notifications set claimed_until = ? where status = 'pending' and claim_token is not null").run(now - 1000);
      } finally {
        db.close();
      }
    },
    killed() {
      kills.push(telegram.calls.length);
    },
    async finish(_base, file) {
      const caughtUp = () =>
        withDb(file, (db) => {
          const unsettled = db.prepare("select count(*) as n from bets where status = 'OPEN' and settle_at <= ?").get(Date.now()) as { n: number };
          const pending = db.prepare("select count(*) as n from notifications where status = 'pending'").get() as { n: number };
          return unsettled.n === 0 && pending.n === 0;
        });
      await waitUntil(caughtUp, 'settlement and the outbox to catch up after the last restart', 120_000);
      const owed = withDb(file, (db) =>
        db.prepare("select chat_id, kind, bet_id, status from notifications where kind in ('bet_opened', 'bet_settled')").all(),
      ) as Array<{ chat_id: string; kind: string; bet_id: number; status: string }>;
      assert.ok(owed.length > 0, 'bet notices were written');
      withDb(file, (db) => {
        const all = bets(db);
        Object.assign(scenario.stats, {
          bets: all.length,
          settled: all.filter((b) => b.close_reason === 'settlement').length,
          closedByUser: all.filter((b) => b.close_reason === 'user').length,
          notices: owed.length,
          kills: kills.length,
        });
      });
      const positions = new Map<string, number[]>();
      telegram.calls.forEach((c, i) => {
        const key = noticeKey(c);
        if (key) positions.set(key, [...(positions.get(key) ?? []), i]);
      });
      for (const n of owed) {
        assert.equal(n.status, 'sent');
        const key = `${n.chat_id}:${n.kind === 'bet_opened' ? 'opened' : 'settled'}:${n.bet_id}`;
        const at = positions.get(key) ?? [];
        assert.ok(at.length >= 1, `notice ${key} never reached Telegram`);
        // A second send only after a kill that fell after the first one.
        for (let i = 1; i < at.length; i++) {
          assert.ok(
            kills.some((k) => k > at[i - 1]! && k <= at[i]!),
            `notice ${key} sent again (calls ${at.join(', ')}) with no kill in between (kills at ${kills.join(', ')})`,
          );
        }
      }
      assert.ok(scenario.duplicates() <= kills.length, 'at most one notice in flight per killed process');
    },
    stats: { bets: 0, settled: 0, closedByUser: 0, notices: 0, kills: 0 },
    duplicates() {
      let n = 0;
      const seen = new Set<string>();
      for (const c of telegram.calls) {
        const key = noticeKey(c);
        if (!key) continue;
        if (seen.has(key)) n++;
        seen.add(key);
      }
      return n;
    },
    stop: () => telegram.stop(),
  };
  return scenario;
}
