import { type Static, Type } from '@sinclair/typebox';
import { Nullable, ref, StringEnum } from './common.js';

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** The fields of a bet the record commits to. */
const betState = {
  ticker: Type.String(),
  direction: StringEnum(['LONG', 'SHORT']),
  status: StringEnum(['OPEN', 'CLOSED', 'CANCELLED']),
  entry_price: Type.Number(),
  exit_price: Nullable(Type.Number()),
  percentage_gain: Nullable(Type.Number()),
  target_date: Nullable(Type.String({ format: 'date' })),
};

export const RecordEventSchema = Type.Object(
  {
    user_id: Type.Integer(),
    seq: Type.Integer(),
    kind: StringEnum(['opened', 'closed', 'cancelled', 'settled']),
    at: Type.String({ format: 'date-time' }),
    bet_id: Type.Integer(),
    ...betState,
  },
  { $id: 'RecordEvent', additionalProperties: false },
);

export const RecordDaySchema = Type.Object(
  { date: Type.String({ format: 'date' }), root: Hash, tree_size: Type.Integer(), published_at: Type.String({ format: 'date-time' }) },
  { $id: 'RecordDay', additionalProperties: false },
);
export type RecordDay = Static<typeof RecordDaySchema>;

export const UserRecordSchema = Type.Object(
  {
    user_id: Type.Integer(),
    entries: Type.Array(
      Type.Object({ seq: Type.Integer(), prev_hash: Hash, hash: Hash, event: ref(RecordEventSchema) }, { additionalProperties: false }),
    ),
    bets: Type.Array(Type.Object({ id: Type.Integer(), ...betState }, { additionalProperties: false })),
    proof: Nullable(
      Type.Object(
        {
          date: Type.String({ format: 'date' }),
          root: Hash,
          tree_size: Type.Integer(),
          leaf_index: Type.Integer(),
          leaf: Type.Object({ user_id: Type.Integer(), seq: Type.Integer(), hash: Hash }, { additionalProperties: false }),
          path: Type.Array(Hash),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'UserRecord', additionalProperties: false },
);
export type UserRecord = Static<typeof UserRecordSchema>;
