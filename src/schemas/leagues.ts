// Leagues (DESIGN paths; docs/leagues.md): requests and answers.
import { type Static, Type } from '@sinclair/typebox';
import { Count, DateString, DateTime, Id, Nullable, PAGE_MAX, Page, ref, StringEnum, Text, Ticker, Username } from './common.js';
import { PublicUserSchema } from './users.js';

const Hash = Type.String({ minLength: 64, maxLength: 64, pattern: '^[0-9a-f]{64}$' });
export const INVITE_CODE_PATTERN = '^[A-Za-z0-9]{6,32}$';
const InviteCode = () => Type.String({ minLength: 6, maxLength: 32, pattern: INVITE_CODE_PATTERN });

const Name = () => Text({ minLength: 1, maxLength: 80 });
const Description = () => Text({ maxLength: 1000 });
const MemberLimit = () => Type.Integer({ format: 'int32', minimum: 2, maximum: 1000, description: 'Members at most, the owner included' });
const Visibility = () =>
  StringEnum(['private', 'public'], { description: '`private`: joined by invite code only; `public`: anyone may also join by id until the start' });

export const LeagueRulesSchema = Type.Object(
  {
    instruments: StringEnum(['all', 'stocks', 'crypto'], {
      description: 'Which bets count: every ticker, stocks and ETFs only, or crypto pairs only',
    }),
    min_closed_bets: Type.Integer({
      format: 'int32',
      minimum: 0,
      maximum: 1000,
      description: 'Counted bets (closed, or open and marked at the end) needed to be ranked; at least one always',
    }),
    scoring: StringEnum(['gain', 'skill'], {
      description: "`gain`: the summed percentage gain; `skill`: the skill score of GET /rankings over the league's bets",
    }),
  },
  { $id: 'LeagueRules', additionalProperties: false },
);
export type LeagueRules = Static<typeof LeagueRulesSchema>;

export const CreateLeagueRequestSchema = Type.Object(
  {
    name: Name(),
    description: Type.Optional(Description()),
    starts_at: DateTime({ description: 'Now or later (a start up to 5 minutes in the past counts as now)' }),
    ends_at: DateTime({ description: 'After starts_at, at most one year after it' }),
    visibility: Visibility(),
    member_limit: Type.Optional(MemberLimit()),
    rules: ref(LeagueRulesSchema),
  },
  { $id: 'CreateLeagueRequest', additionalProperties: false },
);
export type CreateLeagueRequest = Static<typeof CreateLeagueRequestSchema>;

export const UpdateLeagueRequestSchema = Type.Object(
  {
    name: Type.Optional(Name()),
    description: Type.Optional(Description()),
    starts_at: Type.Optional(DateTime()),
    ends_at: Type.Optional(DateTime()),
    visibility: Type.Optional(Visibility()),
    member_limit: Type.Optional(MemberLimit()),
    rules: Type.Optional(
      Type.Object(
        {
          instruments: Type.Optional(LeagueRulesSchema.properties.instruments),
          min_closed_bets: Type.Optional(LeagueRulesSchema.properties.min_closed_bets),
          scoring: Type.Optional(LeagueRulesSchema.properties.scoring),
        },
        { additionalProperties: false },
      ),
    ),
    daily_standing: Type.Optional(
      Type.Boolean({ description: "The caller's own choice (any member, any time): whether the daily standing is sent" }),
    ),
  },
  { $id: 'UpdateLeagueRequest', additionalProperties: false },
);
export type UpdateLeagueRequest = Static<typeof UpdateLeagueRequestSchema>;

export const JoinLeagueRequestSchema = Type.Object({ code: InviteCode() }, { $id: 'JoinLeagueRequest', additionalProperties: false });

const Status = () =>
  StringEnum(['upcoming', 'running', 'ended', 'final'], {
    description: '`ended`: past its end, the final board not yet settled; `final`: the board is frozen',
  });

const summary = {
  id: Id(),
  name: Name(),
  description: Description(),
  owner: ref(PublicUserSchema),
  visibility: Visibility(),
  starts_at: DateTime(),
  ends_at: DateTime(),
  status: Status(),
  member_limit: MemberLimit(),
  member_count: Count(),
  rules: ref(LeagueRulesSchema),
  is_member: Type.Boolean({ description: 'The caller is a member (false without a session)' }),
};

export const LeagueSummarySchema = Type.Object(summary, { $id: 'LeagueSummary', additionalProperties: false });
export type LeagueSummary = Static<typeof LeagueSummarySchema>;

export const LeagueListSchema = Type.Object(
  { leagues: Page(ref(LeagueSummarySchema)), total: Count({ description: 'Leagues in the whole list, independent of the page' }) },
  { $id: 'LeagueList', additionalProperties: false },
);
export type LeagueList = Static<typeof LeagueListSchema>;

export const LeagueMemberSchema = Type.Object(
  {
    id: Id(),
    username: Username(),
    joined_at: DateTime(),
    left_at: Nullable(DateTime({ description: 'Left after the start: still on the board to the end' })),
  },
  { $id: 'LeagueMember', additionalProperties: false },
);

export const LeagueSchema = Type.Object(
  {
    ...summary,
    members: Type.Array(ref(LeagueMemberSchema), { maxItems: 1000 }),
    invite_code: Nullable(InviteCode()),
    daily_standing: Nullable(Type.Boolean({ description: "The caller's choice for the daily standing (null for non-members)" })),
    settled_at: Nullable(DateTime()),
  },
  { $id: 'League', additionalProperties: false, description: 'invite_code is shown to members only' },
);
export type League = Static<typeof LeagueSchema>;

export const InviteCodeResponseSchema = Type.Object({ invite_code: InviteCode() }, { $id: 'InviteCodeResponse', additionalProperties: false });

const Score = () => Nullable(Type.Number({ description: 'Null: no score yet' }));

/** docs/leagues.md: which scoring a league uses, fixed when it starts. */
const ScoringVersion = (description: string) =>
  Type.Unsafe<1 | 2>(Type.Integer({ format: 'int32', minimum: 1, maximum: 2, enum: [1, 2], description }));
const SCORING_VERSION_TEXT =
  '1: raw gains (entry to exit of every counted close; the leagues already running when ranked gains shipped keep it); ' +
  '2: ranked gains (committed price to exit; a close inside the cancel window, a cancel, or a bet committed after the end is shown but never scored)';
const EarlyCloses = () =>
  Count({ description: 'Version 2 only: closes made before their committed instant (inside the cancel window), shown but never scored' });

export const LeagueBoardRowSchema = Type.Object(
  {
    rank: Nullable(Count({ description: 'Null: unranked (below the minimum of counted bets)' })),
    user: ref(PublicUserSchema),
    score: Score(),
    trades: Count({ description: 'Counted bets: closed by the end or marked at it' }),
    marked: Count({ description: 'Of those, open at the instant and marked at its price' }),
    cancels: Count(),
    cancel_rate: Type.Number({ minimum: 0, maximum: 1 }),
    left: Type.Boolean({ description: 'Left after the start; stays on the board' }),
    early_closes: Type.Optional(EarlyCloses()),
  },
  { $id: 'LeagueBoardRow', additionalProperties: false },
);

export const LeagueBoardSchema = Type.Object(
  {
    league_id: Id(),
    status: Status(),
    final: Type.Boolean({ description: 'Frozen: the board as settled at the end, never to change' }),
    settled_at: Nullable(DateTime()),
    as_of: DateTime({ description: 'The instant the scores are counted at (the end once final)' }),
    rules: ref(LeagueRulesSchema),
    scoring_version: ScoringVersion(`The gains this board sums. ${SCORING_VERSION_TEXT}`),
    rows: Type.Array(ref(LeagueBoardRowSchema), { maxItems: 1000 }),
  },
  { $id: 'LeagueBoard', additionalProperties: false },
);
export type LeagueBoard = Static<typeof LeagueBoardSchema>;

export const LeagueFeedItemSchema = Type.Object(
  {
    bet_id: Id(),
    user: ref(PublicUserSchema),
    ticker: Ticker(),
    direction: StringEnum(['LONG', 'SHORT']),
    status: StringEnum(['OPEN', 'CLOSED', 'CANCELLED']),
    entry_price: Type.Number(),
    exit_price: Nullable(Type.Number()),
    percentage_gain: Nullable(Type.Number()),
    opened_at: DateTime(),
    closed_at: Nullable(DateTime()),
    counted: Type.Boolean({ description: 'On an instrument the league counts; false ones are shown but never scored' }),
    committed_price: Nullable(
      Type.Number({
        description: 'The quote at the end of the cancel window (opened_at + 5 min); null before it, or for a bet that finished inside it',
      }),
    ),
    ranked_gain: Nullable(
      Type.Number({
        description:
          'Committed price to exit, what a version-2 league sums (beside the raw percentage_gain); null while open or when the bet finished inside its cancel window',
      }),
    ),
  },
  { $id: 'LeagueFeedItem', additionalProperties: false },
);

export const LeagueFeedSchema = Type.Object(
  { items: Page(ref(LeagueFeedItemSchema)) },
  { $id: 'LeagueFeed', additionalProperties: false, description: "Members' bets opened within the window, newest first" },
);
export type LeagueFeed = Static<typeof LeagueFeedSchema>;

/** One row of the board as hashed: users by id, as the record names them. */
const DocumentRow = Type.Object(
  {
    rank: Nullable(Count()),
    user_id: Id(),
    score: Score(),
    trades: Count(),
    marked: Count(),
    cancels: Count(),
    cancel_rate: Type.Number({ minimum: 0, maximum: 1 }),
    left: Type.Boolean(),
    early_closes: Type.Optional(EarlyCloses()),
  },
  { additionalProperties: false },
);

export const LeagueBoardDocumentSchema = Type.Object(
  {
    league: Type.Object(
      {
        id: Id(),
        starts_at: DateTime(),
        ends_at: DateTime(),
        instruments: LeagueRulesSchema.properties.instruments,
        min_closed_bets: LeagueRulesSchema.properties.min_closed_bets,
        scoring: LeagueRulesSchema.properties.scoring,
        scoring_version: Type.Optional(
          ScoringVersion(`The gains the board sums; absent in documents settled before versions existed, which are all 1. ${SCORING_VERSION_TEXT}`),
        ),
      },
      { additionalProperties: false },
    ),
    settled_at: DateTime(),
    board: Type.Array(DocumentRow, { maxItems: 1000 }),
    marks: Type.Record(Type.String({ maxLength: 15 }), Type.Number(), {
      description: 'The price each open bet was marked at, by ticker (and the benchmarks for skill)',
    }),
    heads: Type.Array(Type.Object({ user_id: Id(), seq: Count(), hash: Hash }, { additionalProperties: false }), {
      maxItems: 1000,
      description: "Each member's record chain head at the end (seq 0 and the genesis hash: no entry yet)",
    }),
  },
  { $id: 'LeagueBoardDocument', additionalProperties: false },
);
export type LeagueBoardDocument = Static<typeof LeagueBoardDocumentSchema>;

export const LeagueProofSchema = Type.Object(
  {
    kind: Type.Literal('league-board'),
    scoring_version: Type.Optional(
      ScoringVersion(
        `The gains the board sums, as document.league.scoring_version (which older documents lack; the hashed one is what a verifier trusts). Always in answers; a proof saved before it existed lacks it. ${SCORING_VERSION_TEXT}`,
      ),
    ),
    document: ref(LeagueBoardDocumentSchema),
    board_hash: Hash,
    proof: Type.Object(
      {
        date: DateString({ description: 'The record day whose Merkle root holds the board' }),
        root: Hash,
        tree_size: Count(),
        leaf_index: Count(),
        path: Type.Array(Hash, { maxItems: 64 }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'LeagueProof', additionalProperties: false },
);
export type LeagueProof = Static<typeof LeagueProofSchema>;

export const LeagueListQuerySchema = Type.Object(
  {
    code: Type.Optional(
      Type.String({
        minLength: 6,
        maxLength: 32,
        pattern: INVITE_CODE_PATTERN,
        description: 'An invite code: the list holds the league it opens (any visibility), so an invite link can show it before joining',
      }),
    ),
    scope: Type.Optional(
      StringEnum(['all', 'mine', 'open'], {
        description:
          "`mine`: the caller's leagues; `open`: public ones not started that the caller is not in; `all` (default): both, the caller's first",
      }),
    ),
    limit: Type.Integer({ format: 'int32', minimum: 1, maximum: PAGE_MAX, default: 50 }),
    offset: Type.Integer({ format: 'int32', minimum: 0, maximum: 10000, default: 0 }),
  },
  { additionalProperties: false },
);
export type LeagueListQuery = Static<typeof LeagueListQuerySchema>;
