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

export const RecordEventSchema = Type.Object(
  {
    user_id: Id(),
    seq: Count(),
    kind: StringEnum(['opened', 'closed', 'cancelled', 'settled']),
    at: DateTime(),
    bet_id: Id(),
    ...betState,
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
    bets: Type.Array(Type.Object({ id: Id(), ...betState }, { additionalProperties: false }), { description: 'Every bet of the user' }),
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
