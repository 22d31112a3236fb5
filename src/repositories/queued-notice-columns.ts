// The columns every INSERT … SELECT that queues notices writes alike: the
// notice itself, pending and due now. Its recipients' columns differ by
// channel; these do not.
import { sql } from 'kysely';
import type { NotificationKind } from '../db/tables.js';

/**
 * A number bound as a parameter, typed for PostgreSQL (an INSERT … SELECT or a
 * UNION leaves untyped parameters as text); a bound NULL casts to NULL.
 */
const bigint = (n: number | null) => sql<number | null>`cast(${n} as bigint)`;

export interface QueuedNoticeValues {
  kind: NotificationKind;
  text: string;
  betId: number | null;
  now: number;
}

/** The notice's columns, in this order: kind, text, bet_id, status, next_attempt_at, created_at. */
export function queuedNoticeColumns(v: QueuedNoticeValues) {
  return [
    sql.val(v.kind).as('kind'),
    sql.val(v.text).as('text'),
    bigint(v.betId).as('bet_id'),
    sql.val('pending' as const).as('status'),
    bigint(v.now).as('next_attempt_at'),
    bigint(v.now).as('created_at'),
  ] as const;
}
