// Every table's row type, in one place. Timestamps are epoch milliseconds
// (integers on both dialects, so comparisons and ordering are plain number
// arithmetic); dates are 'YYYY-MM-DD' text; booleans are 0/1 integers.
import type { Generated, Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { BetStatus, Direction } from '../domain/bets.js';
import type { ChatTransportName, NotificationKind, NotificationStatus } from '../domain/notifications.js';
import type { PushKind } from '../domain/push.js';

export type { BetStatus, ChatTransportName, Direction, NotificationKind, NotificationStatus };

export interface UsersTable {
  id: Generated<number>;
  username: string;
  username_lower: string;
  email: string;
  password_hash: string;
  /** Extra capacity granted by the active plan (0 without a plan). */
  extra_bets: Generated<number>;
  extra_slots: Generated<number>;
  pay_customer_id: string | null;
  pay_subscription_id: string | null;
  pay_subscription_status: string | null;
  pay_price_id: string | null;
  created_at: number;
  deleted_at: number | null;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface BetsTable {
  id: Generated<number>;
  user_id: number;
  ticker: string;
  direction: Direction;
  status: BetStatus;
  entry_price: number;
  exit_price: number | null;
  percentage_gain: number | null;
  target_date: string | null;
  /** When the settlement worker closes it (null without target_date). */
  settle_at: number | null;
  opened_at: number;
  /** Exit time: the close, settlement or cancel instant. */
  closed_at: number | null;
  /** Time of the latest event (open, close, cancel): orders the feed. */
  last_event_at: number;
  /** 'user' | 'settlement' | 'cancel' | 'stop_loss' | 'take_profit' once no longer OPEN (the API and the record name the first two manual and target_date). */
  close_reason: string | null;
  /** Tail/fade provenance: the bet this one copied or opposed. */
  source_bet_id: number | null;
  source_kind: 'tail' | 'fade' | null;
  /** The benchmark's price (SPY, or BTC-USD for crypto) at open and at exit; null when it could not be fetched (no alpha). */
  benchmark_entry: number | null;
  benchmark_exit: number | null;
  /** The first published quote at or after the end of the cancel window (docs/rankings.md); null until then, or for ever when the bet finished before it. */
  committed_price: number | null;
  /** The benchmark's first published quote at or after that instant; null without one (no ranked alpha). */
  benchmark_committed: number | null;
  /** Committed price to exit price with the gain formula; null for a bet not ranked. */
  ranked_gain: number | null;
  /** Why a bet can never be ranked (e.g. 'entry_not_quoted' for generated data); null otherwise. */
  unranked_reason: string | null;
  /** Place in the owner's history once finished: 1 for the earliest exit, by (closed_at, id) (migration 0033); null while OPEN. */
  history_pos: number | null;
  /**
   * The finished bet as lists show it, as JSON text without its thesis
   * (finishedView, src/schemas/finished-bet-view.ts; migration 0040), written by the
   * update that finishes it; null while OPEN.
   */
  view_json: string | null;
}

/** One-time jobs over existing data (migration 0026): how far each got, and when it finished. */
export interface DataJobsTable {
  name: string;
  processed: number;
  done_at: number | null;
}

/** Every quote the service published: a committed price or a settlement price is looked up here. */
/** A bet's exit levels (migration 0027, docs/exits.md): percent of gain from entry; live while the bet is OPEN. */
export interface ExitRulesTable {
  bet_id: number;
  ticker: string;
  stop_loss: number | null;
  take_profit: number | null;
  /** The last change: quotes published after it (exclusive) are checked against the levels. */
  set_at: number;
}

export interface QuotesTable {
  ticker: string;
  published_at: number;
  price: number;
}

/** A price alert (docs/alerts.md): live while fired_at is null, then kept with the quote that fired it. */
export interface PriceAlertsTable {
  id: Generated<number>;
  user_id: number;
  ticker: string;
  kind: 'above' | 'below' | 'move';
  /** A price (above, below) or a percentage of daily move either way (move). */
  value: number;
  created_at: number;
  /** The instant of the quote in force when the alert was set: quotes from it on (inclusive) are watched. */
  starts_at: number;
  fired_at: number | null;
  fired_price: number | null;
  /** move alerts: the change_percent of the quote that fired it. */
  fired_change_percent: number | null;
  /** The last quote instant a pass evaluated without firing it. */
  checked_until: number | null;
}

export interface LeaderboardTable {
  user_id: number;
  total_score: number;
  total_trades: number;
}

/** The ranked board's all-time aggregate: as `leaderboard`, over ranked gains only (docs/rankings.md). */
export type RankedLeaderboardTable = LeaderboardTable;

/** One user's CLOSED bets of one UTC day (by exit time), summed: the windows and rankings read these. */
export interface UserDayStatsTable {
  user_id: number;
  day: string;
  trades: number;
  score_sum: number;
  wins: number;
  /** Bets with both benchmark prices, and their alphas summed and squared-summed. */
  alpha_count: number;
  alpha_sum: number;
  alpha_sq_sum: number;
  /** The same sums over the day's ranked bets only (ranked_gain set; ranked alpha from benchmark_committed): the ranked board and the rankings read these. */
  ranked_trades: Generated<number>;
  ranked_score_sum: Generated<number>;
  ranked_wins: Generated<number>;
  ranked_alpha_count: Generated<number>;
  ranked_alpha_sum: Generated<number>;
  ranked_alpha_sq_sum: Generated<number>;
}

/** Where each rolling window begins: its user_window_stats rows sum the day rows from start_day on ('' for `all`). */
export interface WindowStartsTable {
  period: string;
  start_day: string;
}

/** A user's sums over a window (migration 0035): user_day_stats's from the window's start, kept by triggers on those rows. */
export interface UserWindowStatsTable {
  period: string;
  user_id: number;
  trades: number;
  score_sum: number;
  alpha_count: number;
  alpha_sum: number;
  alpha_sq_sum: number;
  ranked_trades: number;
  ranked_score_sum: number;
  ranked_alpha_count: number;
  ranked_alpha_sum: number;
  ranked_alpha_sq_sum: number;
}

/** An instrument's skill-weighted call at one of its closes, and the next close's price that scores it (docs/consensus.md). */
export interface ConsensusCallsTable {
  ticker: string;
  close_at: number;
  call: 'long' | 'short' | 'none';
  /** Holders with a positive weight then. */
  holders: number;
  /** Summed weights of each side; null when too few holders weighed anything. */
  long_weight: number | null;
  short_weight: number | null;
  close_price: number;
  next_close_at: number;
  /** The price at next_close_at; null until the job has read it. */
  next_price: number | null;
}

export interface FollowsTable {
  follower_id: number;
  followed_id: number;
  created_at: number;
}

/** One row per follower and bet of a trader they follow who is not heavily followed (migration 0034, docs/performance.md). */
export interface TimelineTable {
  follower_id: number;
  bet_id: number;
  /** The bet's last_event_at, kept equal to it by the bet's events. */
  last_event_at: number;
}

/** Traders whose bets are not copied into timelines but read at read time (migration 0034). */
export interface HeavilyFollowedTable {
  user_id: number;
}

export interface ChatLinksTable {
  user_id: number;
  transport: ChatTransportName;
  chat_id: string;
  linked_at: number;
}

export interface ChatLinkCodesTable {
  user_id: number;
  /** SHA-256 of the code, hex. */
  code_hash: string;
  created_at: number;
  expires_at: number;
}

export interface NotificationsTable {
  id: Generated<number>;
  /** The recipient; null for replies to a chat that belongs to nobody (an unknown code). */
  user_id: number | null;
  transport: ChatTransportName;
  /** The recipient of a chat channel's row (null on the email channel's). */
  chat_id: string | null;
  /** The recipient of the email channel's row (null on a chat's). */
  email: string | null;
  /** The recipient of the push channel's row: the device's subscription (null on the others'; no reference, so a removed device's history stays). */
  push_subscription_id: number | null;
  kind: NotificationKind;
  /** Plain text; transports escape it for their format. */
  text: string;
  bet_id: number | null;
  status: NotificationStatus;
  attempts: Generated<number>;
  next_attempt_at: number;
  /** Set while one worker holds the notice (until claimed_until). */
  claim_token: string | null;
  claimed_until: number | null;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

export interface PushSubscriptionsTable {
  id: Generated<number>;
  user_id: number;
  /** The push service's URL for this device, as checked by checkPushEndpoint (src/domain/push.ts). */
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  updated_at: number;
}

export interface PushSubscriptionKindsTable {
  subscription_id: number;
  kind: PushKind;
}

export interface RecordEntriesTable {
  user_id: number;
  seq: number;
  bet_id: number;
  kind: string;
  at: number;
  /** The event's canonical JSON, exactly the bytes that were hashed. */
  event: string;
  prev_hash: string;
  hash: string;
}

export interface RecordDaysTable {
  day: string;
  root: string;
  tree_size: number;
  published_at: number;
}

export interface RecordDayLeavesTable {
  day: string;
  idx: number;
  user_id: number;
  seq: number;
  hash: string;
}

export interface ChatUpdatesTable {
  transport: ChatTransportName;
  update_key: string;
  received_at: number;
  answer: string | null;
}

export interface PayEventsTable {
  event_id: string;
  type: string;
  received_at: number;
}

export interface PayLocalCheckoutsTable {
  id: string;
  user_id: number;
  price_id: string;
  created_at: number;
  expires_at: number;
  completed_at: number | null;
}

/** A local-provider subscription set to end with its period. */
export interface PayLocalCancellationsTable {
  user_id: number;
  subscription_id: string;
  cancel_at: number;
}

/** An Idempotency-Key of one user: in flight while status is null, else the answer to replay. */
export interface IdempotencyKeysTable {
  user_id: number;
  idem_key: string;
  fingerprint: string;
  created_at: number;
  status: number | null;
  answer: string | null;
}

/** A stored notice: one that is not about a followed trader's bet (account, settlement, league). */
export interface UserNoticesTable {
  id: Generated<number>;
  user_id: number;
  kind: string;
  text: string;
  /** A path of the web app ('bet/12'), never a host. */
  link: string | null;
  created_at: number;
}

/** A one-time email token (verify an address, reset a password, confirm a change): only its SHA-256 is stored. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: number;
  purpose: 'verify' | 'reset' | 'change';
  email: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** The address a user has verified: verified while it is still the account's address. */
export interface EmailVerifiedTable {
  user_id: number;
  email: string;
  verified_at: number;
}

/** What a user wants by email (no row: nothing, digest at 08:00 UTC when chosen). */
export interface NoticeSettingsTable {
  user_id: number;
  email_notices: 'off' | 'each' | 'digest';
  digest_hour: number;
  time_zone: string;
  next_digest_at: number | null;
  digest_since: number | null;
  updated_at: number;
}

/** Each user's read marker: notices at or before read_until are read. */
export interface NoticeReadsTable {
  user_id: number;
  read_until: number;
}

/** A league (docs/leagues.md); rules fixed at the start, the final board frozen at the end. */
export interface LeaguesTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  description: string;
  visibility: 'private' | 'public';
  invite_code: string;
  starts_at: number;
  ends_at: number;
  member_limit: number;
  instruments: 'all' | 'stocks' | 'crypto';
  min_closed_bets: number;
  scoring: 'gain' | 'skill';
  /** 1 raw gains, 2 ranked gains (migration 0024; src/domain/leagues.ts ScoringVersion); 2 unless given. */
  scoring_version: Generated<1 | 2>;
  created_at: number;
  start_noticed_at: number | null;
  standing_day: string | null;
  settled_at: number | null;
  /** The final board document (canonical JSON), exactly the bytes hashed into board_hash. */
  final_document: string | null;
  board_hash: string | null;
  record_day: string | null;
  record_leaf_idx: number | null;
}

export interface LeagueMembersTable {
  league_id: number;
  user_id: number;
  joined_at: number;
  left_at: number | null;
  daily_standing: Generated<number>;
  // The member's finished bets that count in the league (migration 0020; src/domain/leagues.ts MemberTally).
  trades: Generated<number>;
  cancels: Generated<number>;
  gain_sum: Generated<number>;
  alpha_n: Generated<number>;
  alpha_sum: Generated<number>;
  alpha_sq_sum: Generated<number>;
  // Version 2: closes made before their committed instant (migration 0024).
  early_closes: Generated<number>;
}

/** A bet's thesis (migration 0029, docs/theses.md): written once at opening, never edited. */
export interface BetThesesTable {
  bet_id: number;
  user_id: number;
  text: string;
  salt: string;
  hash: string;
  created_at: number;
  hidden_at: number | null;
  counted_reports: Generated<number>;
}

/** One user's report of a thesis; counted when the reporter's account qualified at the time (src/domain/thesis.ts). */
export interface ThesisReportsTable {
  bet_id: number;
  reporter_id: number;
  counted: number;
  reported_at: number;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  settings: SettingsTable;
  bets: BetsTable;
  quotes: QuotesTable;
  exit_rules: ExitRulesTable;
  data_jobs: DataJobsTable;
  leaderboard: LeaderboardTable;
  ranked_leaderboard: RankedLeaderboardTable;
  user_day_stats: UserDayStatsTable;
  window_starts: WindowStartsTable;
  user_window_stats: UserWindowStatsTable;
  consensus_calls: ConsensusCallsTable;
  follows: FollowsTable;
  timeline: TimelineTable;
  heavily_followed: HeavilyFollowedTable;
  chat_links: ChatLinksTable;
  chat_link_codes: ChatLinkCodesTable;
  notifications: NotificationsTable;
  chat_updates: ChatUpdatesTable;
  record_entries: RecordEntriesTable;
  record_days: RecordDaysTable;
  record_day_leaves: RecordDayLeavesTable;
  pay_events: PayEventsTable;
  pay_local_checkouts: PayLocalCheckoutsTable;
  pay_local_cancellations: PayLocalCancellationsTable;
  idempotency_keys: IdempotencyKeysTable;
  leagues: LeaguesTable;
  league_members: LeagueMembersTable;
  user_notices: UserNoticesTable;
  notice_reads: NoticeReadsTable;
  email_tokens: EmailTokensTable;
  email_verified: EmailVerifiedTable;
  notice_settings: NoticeSettingsTable;
  price_alerts: PriceAlertsTable;
  bet_theses: BetThesesTable;
  thesis_reports: ThesisReportsTable;
  push_subscriptions: PushSubscriptionsTable;
  push_subscription_kinds: PushSubscriptionKindsTable;
}

/** The database or a transaction on it, as data-access functions take it. */
export type Db = Kysely<Database>;

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type BetRow = Selectable<BetsTable>;
export type NewBet = Insertable<BetsTable>;
export type ChatLinkRow = Selectable<ChatLinksTable>;
export type NotificationRow = Selectable<NotificationsTable>;
export type NewNotification = Insertable<NotificationsTable>;
