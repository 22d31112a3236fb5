// The generated population as streams of rows, with no I/O: users, finished
// and open bets, follows. Rows are arrays in the order of the *_COLUMNS lists,
// so the bulk writer can bind them to prepared multi-row inserts directly.
import { usernameKey } from '../../src/domain/accounts.js';
import { percentageGain } from '../../src/domain/bets.js';
import { type BetColumn, BET_COLUMNS as COLUMNS_OF_A_BET, type BetViewRow } from '../../src/db/bet-columns.js';
import { finishedView } from '../../src/schemas/finished-bet-view.js';
import type { Direction } from '../../src/db/tables.js';
import type { Preset } from './presets.js';
import { seededRng, type Rng } from './random.js';
import { emailOf, FEED_FOLLOWS, FIRST_ORDINARY_ID, PLAN_SIZED_EXTRA, POPULAR_FOLLOWERS, PORTFOLIO_OPEN_BETS, ROLES } from './roles.js';
import { TICKERS } from './tickers.js';

export type Row = Array<string | number | null>;

const DAY = 24 * 3600 * 1000;
const SPAN = 2 * 365 * DAY;

export const USER_COLUMNS = ['id', 'username', 'username_lower', 'email', 'password_hash', 'extra_bets', 'extra_slots', 'created_at'];
/** Every column of the bets table (src/db/bet-columns.ts), the id first. */
export const BET_COLUMNS = ['id', ...COLUMNS_OF_A_BET];
/**
 * A bet as a row in BET_COLUMNS' order, the columns it does not name null
 * (a finished one's stored view made from the others).
 * Generated entry prices are not the market's quotes at their openings, so
 * every generated bet is unranked 'entry_not_quoted' (docs/rankings.md).
 */
function betRow(bet: { id: number } & Partial<Record<BetColumn, string | number>>): Row {
  const values: Partial<Record<string, string | number>> = { unranked_reason: 'entry_not_quoted', ...bet };
  // A finished bet's stored view, as the update finishing it writes it (migration 0040).
  if (bet.closed_at !== undefined) values.view_json = finishedView({ close_reason: null, ...bet } as unknown as BetViewRow);
  return BET_COLUMNS.map((column) => values[column] ?? null);
}

export const FOLLOW_COLUMNS = ['follower_id', 'followed_id', 'created_at'];
export const CHAT_LINK_COLUMNS = ['user_id', 'transport', 'chat_id', 'linked_at'];

const ADJECTIVES = ['bold', 'calm', 'keen', 'lucky', 'quiet', 'swift', 'wise', 'brave', 'eager', 'sharp', 'steady', 'witty'];
const NOUNS = ['otter', 'falcon', 'badger', 'heron', 'lynx', 'panda', 'raven', 'tiger', 'whale', 'yak', 'bison', 'fox'];

export class Population {
  readonly ordinary: number;
  private readonly now: number;
  private readonly start: number;

  constructor(
    readonly preset: Preset,
    now: number,
    readonly seed = 20_261_122,
  ) {
    this.ordinary = preset.users - FIRST_ORDINARY_ID + 1;
    if (this.ordinary < Math.max(POPULAR_FOLLOWERS, FEED_FOLLOWS, preset.followsEach + 1)) {
      throw new Error(`preset ${preset.name}: too few users for the special users' follows`);
    }
    // The finished bets end a day before "now", so they all lie in the past
    // even when a cached database is reused later.
    this.now = Math.floor(now / 60_000) * 60_000;
    this.start = this.now - DAY - SPAN;
  }

  /** An ordinary user, skewed so a few are very active and most trade now and then. */
  private activeUser(rng: Rng): number {
    const u = rng.next();
    return FIRST_ORDINARY_ID + Math.floor(this.ordinary * u * u);
  }

  *users(passwordHash: string): Generator<Row> {
    const rng = seededRng(this.seed);
    const plan = new Set<number>([ROLES.trader.id, ROLES.popular.id, ROLES.fanOutMid.id, ROLES.fanOutLarge.id]);
    for (let id = 1; id <= this.preset.users; id++) {
      const role = Object.values(ROLES).find((r) => r.id === id);
      const username = role?.username ?? `${ADJECTIVES[id % 12]}_${NOUNS[Math.floor(id / 12) % 12]}_${id}`;
      yield [
        id,
        username,
        usernameKey(username),
        emailOf(id),
        passwordHash,
        plan.has(id) ? PLAN_SIZED_EXTRA : 0,
        id === ROLES.follower.id ? PLAN_SIZED_EXTRA : 0,
        this.start - (1 + rng.int(90)) * DAY,
      ];
    }
  }

  /** How many finished bets the special users get; the rest go to ordinary users. */
  private roleQuotas(): Array<{ id: number; left: number }> {
    return [
      { id: ROLES.history.id, left: this.preset.historyBets },
      { id: ROLES.demo.id, left: 150 },
      { id: ROLES.popular.id, left: 80 },
      { id: ROLES.portfolio.id, left: 20 },
    ];
  }

  /** CLOSED (about 92 %) and CANCELLED bets spread evenly over two years, ids in time order. */
  *finishedBets(): Generator<Row> {
    const rng = seededRng(this.seed + 1);
    const total = this.preset.finishedBets;
    const quotas = this.roleQuotas();
    let roleLeft = quotas.reduce((s, q) => s + q.left, 0);
    if (roleLeft > total) throw new Error(`preset ${this.preset.name}: finishedBets must be at least ${roleLeft}`);
    for (let i = 0; i < total; i++) {
      // Sequential sampling: each special user's bets land at random places
      // in time, and their counts come out exact.
      let owner = 0;
      const pick = rng.next() * (total - i);
      if (pick < roleLeft) {
        let acc = 0;
        for (const q of quotas) {
          acc += q.left;
          if (pick < acc) {
            owner = q.id;
            q.left--;
            roleLeft--;
            break;
          }
        }
      }
      if (owner === 0) owner = this.activeUser(rng);
      const openedAt = this.start + Math.floor(((i + rng.next()) / total) * SPAN);
      yield this.finishedBet(rng, i + 1, owner, openedAt);
    }
  }

  private finishedBet(rng: Rng, id: number, userId: number, openedAt: number): Row {
    const { ticker, price } = TICKERS[rng.int(TICKERS.length)];
    const direction: Direction = rng.next() < 0.6 ? 'LONG' : 'SHORT';
    const entry = round(price * Math.exp(0.15 * rng.normal()));
    if (rng.next() < 0.08) {
      const cancelledAt = openedAt + 10_000 + rng.int(280_000);
      return betRow({
        id,
        user_id: userId,
        ticker,
        direction,
        status: 'CANCELLED',
        entry_price: entry,
        exit_price: entry,
        percentage_gain: 0,
        opened_at: openedAt,
        closed_at: cancelledAt,
        last_event_at: cancelledAt,
        close_reason: 'cancel',
      });
    }
    // Held from minutes to weeks (mean three days), never past the data's end.
    const held = Math.min(Math.floor(-Math.log(1 - rng.next()) * 3 * DAY) + 60_000, this.now - DAY - openedAt);
    const closedAt = openedAt + Math.max(held, 60_000);
    const exit = round(entry * Math.exp(0.06 * rng.normal()));
    return betRow({
      id,
      user_id: userId,
      ticker,
      direction,
      status: 'CLOSED',
      entry_price: entry,
      exit_price: exit,
      percentage_gain: percentageGain(direction, entry, exit),
      opened_at: openedAt,
      closed_at: closedAt,
      last_event_at: closedAt,
      close_reason: 'user',
    });
  }

  /** Open bets opened in the last 30 days, past their cancellation window; ids follow the finished ones. */
  *openBets(): Generator<Row> {
    const rng = seededRng(this.seed + 2);
    const owners: number[] = [...Array<number>(PORTFOLIO_OPEN_BETS).fill(ROLES.portfolio.id), ...Array<number>(4).fill(ROLES.demo.id)];
    const ordinary = Math.max(0, this.preset.openBets - owners.length);
    if (ordinary > this.ordinary * 10) throw new Error(`preset ${this.preset.name}: more open bets than the users' capacity`);
    for (let k = 0; k < ordinary; k++) owners.push(FIRST_ORDINARY_ID + (k % this.ordinary));
    let id = this.preset.finishedBets;
    for (const userId of owners) {
      const { ticker, price } = TICKERS[rng.int(TICKERS.length)];
      const openedAt = this.now - 10 * 60_000 - rng.int(30 * DAY);
      const direction: Direction = rng.next() < 0.6 ? 'LONG' : 'SHORT';
      const entry = round(price * Math.exp(0.05 * rng.normal()));
      yield betRow({
        id: ++id,
        user_id: userId,
        ticker,
        direction,
        status: 'OPEN',
        entry_price: entry,
        opened_at: openedAt,
        last_event_at: openedAt,
      });
    }
  }

  /** Ordinary followers (50 active traders each), the feed user's and the demo's follows, the popular user's followers. */
  *follows(): Generator<Row> {
    const rng = seededRng(this.seed + 3);
    const at = () => this.now - DAY - rng.int(365 * DAY);
    const { followers, followsEach } = this.preset;
    const chooser = (self: number, count: number) => {
      const picked = new Set<number>();
      while (picked.size < count) {
        const u = this.activeUser(rng);
        if (u !== self) picked.add(u);
      }
      return picked;
    };
    for (let j = 0; j < followers; j++) {
      const follower = FIRST_ORDINARY_ID + Math.floor((j * this.ordinary) / followers);
      for (const target of chooser(follower, followsEach)) yield [follower, target, at()];
    }
    for (const target of chooser(ROLES.feed.id, FEED_FOLLOWS)) yield [ROLES.feed.id, target, at()];
    for (const target of chooser(ROLES.demo.id, 20)) yield [ROLES.demo.id, target, at()];
    // Only these special users are ever followed, so the trader keeps no followers.
    for (const follower of this.popularFollowers()) yield [follower, ROLES.popular.id, at()];
    for (let k = 0; k < 10; k++) yield [FIRST_ORDINARY_ID + 1 + Math.floor((k * this.ordinary) / 10), ROLES.demo.id, at()];
    const [mid, large] = this.preset.fanOut;
    const fans = this.fanOutFollowers();
    if (fans.length !== large) throw new Error(`preset ${this.preset.name}: too few users for ${large} fan-out followers`);
    for (const follower of fans) yield [follower, ROLES.fanOutLarge.id, at()];
    for (const follower of fans.slice(0, mid)) yield [follower, ROLES.fanOutMid.id, at()];
  }

  popularFollowers(): number[] {
    return Array.from({ length: POPULAR_FOLLOWERS }, (_, k) => FIRST_ORDINARY_ID + Math.floor((k * this.ordinary) / POPULAR_FOLLOWERS));
  }

  /** The ordinary users who follow 50 (full) active traders each: at or above the base follow capacity. */
  followerGroup(): Set<number> {
    const { followers } = this.preset;
    return new Set(Array.from({ length: followers }, (_, j) => FIRST_ORDINARY_ID + Math.floor((j * this.ordinary) / followers)));
  }

  /** Ordinary users outside the follower group, in id order (most active first): free to follow and to trade. */
  private unattached(): number[] {
    const group = this.followerGroup();
    const out: number[] = [];
    for (let id = FIRST_ORDINARY_ID; id <= this.preset.users; id++) if (!group.has(id)) out.push(id);
    return out;
  }

  /** The fan-out's followers: the large step's, the middle step's being its first ones. */
  fanOutFollowers(): number[] {
    return this.unattached().slice(0, this.preset.fanOut[1]);
  }

  /**
   * Ordinary traders for the spread writes (open + close, follow + unfollow):
   * `count` users outside the follower group (so each has room to follow),
   * spread evenly over the ids, from the most active to the least.
   */
  traders(count: number): number[] {
    const pool = this.unattached();
    if (pool.length < count) throw new Error(`preset ${this.preset.name}: ${pool.length} ordinary users free to trade, ${count} needed`);
    return Array.from({ length: count }, (_, k) => pool[Math.floor((k * pool.length) / count)] as number);
  }

  /**
   * Messaging links (the local log transport's addresses) of the popular
   * user's followers, so each of their opens fans out to 50 notices, and of
   * the fan-out's followers.
   */
  *chatLinks(): Generator<Row> {
    for (const id of this.linkedUsers()) yield [id, 'log', `local:${id}`, this.now - DAY];
  }

  private linkedUsers(): number[] {
    return [...new Set([...this.popularFollowers(), ...this.fanOutFollowers()])].sort((a, b) => a - b);
  }

  chatLinkCount(): number {
    return this.linkedUsers().length;
  }

  followCount(): number {
    const [mid, large] = this.preset.fanOut;
    return this.preset.followers * this.preset.followsEach + FEED_FOLLOWS + 20 + POPULAR_FOLLOWERS + 10 + mid + large;
  }

  openBetCount(): number {
    return Math.max(this.preset.openBets, PORTFOLIO_OPEN_BETS + 4);
  }
}

function round(price: number): number {
  return Math.round(price * 100) / 100;
}
