import { type Static, Type } from '@sinclair/typebox';
import { Count, DateString, DateTime, Id, Nullable, ref, StringEnum, Ticker } from './common.js';

const Hash = Type.String({ minLength: 64, maxLength: 64, pattern: '^[0-9a-f]{64}$' });

/** The fields of a bet the record commits to. */
const betState = {
  ticker: Ticker(),
  direction: StringEnum(['LONG', 'SHORT']),
  status: StringEnum(['OPEN', 'CLOSED', 'CANCELLED']),
  entry_price: Type.Number(),
  exit_price: Nullable(Type.Number()),
  percentage_gain: Nullable(Type.Number()),
  target_date: Nullable(DateString()),
};

/**
 * Fields entries gained after the first format (docs/record.md): absent on
 * older entries; a null one is left out when stored, and verification treats
 * absent and null alike (OPTIONAL_EVENT_FIELDS in src/domain/record-encoding.ts).
 */
const laterFields = {
  event_at: Type.Optional(Nullable(DateTime({ description: "The event's own instant; `at` is when the entry was appended" }))),
  committed_price: Type.Optional(Nullable(Type.Number({ description: 'The first quote published at or after the end of the cancel window' }))),
  benchmark_committed: Type.Optional(Nullable(Type.Number({ description: "The benchmark's quote at that instant" }))),
  close_reason: Type.Optional(Nullable(StringEnum(['manual', 'cancel', 'target_date', 'stop_loss', 'take_profit']))),
  thesis_hash: Type.Optional(Nullable(Type.String({ ...Hash, description: "SHA-256 (hex) of the bet's thesis text" }))),
  ranked_gain: Type.Optional(Nullable(Type.Number({ description: 'Committed price to exit price with the gain formula' }))),
};

export const RecordEventSchema = Type.Object(
  {
    user_id: Id(),
    seq: Count(),
    kind: StringEnum(['opened', 'committed', 'closed', 'cancelled', 'settled']),
    at: DateTime({ description: 'When the entry was appended (on entries without event_at, also the instant of the event)' }),
    bet_id: Id(),
    ...betState,
    ...laterFields,
  },
  { $id: 'RecordEvent', additionalProperties: false },
);

export const RecordDaySchema = Type.Object(
  { date: DateString(), root: Hash, tree_size: Count(), published_at: DateTime() },
  { $id: 'RecordDay', additionalProperties: false },
);
export type RecordDay = Static<typeof RecordDaySchema>;

export const UserRecordSchema = Type.Object(
  {
    user_id: Id(),
    entries: Type.Array(Type.Object({ seq: Count(), prev_hash: Hash, hash: Hash, event: ref(RecordEventSchema) }, { additionalProperties: false }), {
      description: "The user's whole hash chain, oldest first",
    }),
    bets: Type.Array(
      Type.Object(
        {
          id: Id(),
          ...betState,
          committed_price: Type.Optional(Nullable(Type.Number())),
          benchmark_committed: Type.Optional(Nullable(Type.Number())),
          ranked_gain: Type.Optional(Nullable(Type.Number())),
          thesis: Type.Optional(
            Nullable(Type.String({ maxLength: 280, description: "The bet's thesis while it is shown to everyone (docs/theses.md)" })),
          ),
          thesis_salt: Type.Optional(
            Nullable(
              Type.String({
                minLength: 32,
                maxLength: 32,
                pattern: '^[0-9a-f]{32}$',
                description: "With thesis: SHA-256 of this salt, a newline and the text is the opening entry's thesis_hash",
              }),
            ),
          ),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Every bet of the user; committed_price, benchmark_committed and ranked_gain are checked against a latest entry that has event_at; ' +
          "a shown thesis with its salt is checked against the opening entry's thesis_hash",
      },
    ),
    proof: Nullable(
      Type.Object(
        {
          date: DateString(),
          root: Hash,
          tree_size: Count(),
          leaf_index: Count(),
          leaf: Type.Object({ user_id: Id(), seq: Count(), hash: Hash }, { additionalProperties: false }),
          path: Type.Array(Hash, { maxItems: 64, description: 'RFC 6962 audit path: one hash per level of the tree' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'UserRecord', additionalProperties: false },
);
export type UserRecord = Static<typeof UserRecordSchema>;
