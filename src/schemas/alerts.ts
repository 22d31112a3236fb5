// Price alerts (DESIGN: GET, POST /alerts, DELETE /alerts/{alert_id}; docs/alerts.md).
import { type Static, Type } from '@sinclair/typebox';
import { MOVE_MAX, PRICE_MAX } from '../domain/alerts.js';
import { Count, DateTime, Id, Nullable, Page, ref, StringEnum, Text, Ticker } from './common.js';

const Kind = () =>
  StringEnum(['above', 'below', 'move'], {
    description:
      '`above`/`below`: a published quote at or beyond the price `value`; `move`: the change since the previous close ' +
      '(`change_percent` of the instrument directory) reaching `value` % either way',
  });

export const CreateAlertRequestSchema = Type.Object(
  {
    ticker: Text({ minLength: 1, maxLength: 32, description: 'Upper-cased; badly formed 400, unknown 404' }),
    kind: Kind(),
    value: Type.Number({
      exclusiveMinimum: 0,
      maximum: PRICE_MAX,
      description: `A price above 0 (above, below), or a percentage from 0.01 to ${MOVE_MAX} (move)`,
    }),
  },
  { $id: 'CreateAlertRequest', additionalProperties: false },
);
export type CreateAlertRequest = Static<typeof CreateAlertRequestSchema>;

export const AlertSchema = Type.Object(
  {
    id: Id(),
    ticker: Ticker(),
    kind: Kind(),
    value: Type.Number({ exclusiveMinimum: 0, maximum: PRICE_MAX }),
    status: StringEnum(['active', 'fired'], { description: '`fired` once a published quote met it; an alert fires once' }),
    created_at: DateTime(),
    fired_at: Nullable(DateTime({ description: 'The instant of the published quote that met it' })),
    fired_price: Nullable(Type.Number({ description: "That quote's price (never the level itself)" })),
    fired_change_percent: Nullable(Type.Number({ description: "move alerts: that quote's change since the previous close, in %" })),
  },
  { $id: 'Alert', additionalProperties: false },
);
export type Alert = Static<typeof AlertSchema>;

export const AlertListSchema = Type.Object(
  {
    alerts: Page(ref(AlertSchema), { description: 'Newest first' }),
    total: Count({ description: "The caller's alerts, active and fired, independent of the page" }),
    active: Count({ description: 'Alerts not yet fired: these count against the capacity' }),
    capacity: Count({ description: "Active alerts the caller may have: BASE_ALERT_CAPACITY plus the plan's extra_alerts" }),
  },
  { $id: 'AlertList', additionalProperties: false },
);
export type AlertList = Static<typeof AlertListSchema>;
