import { type Static, Type } from '@sinclair/typebox';
import { Nullable, ref, StringEnum } from './common.js';

export const StripePlanSchema = Type.Object(
  {
    price_id: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    interval: StringEnum(['day', 'week', 'month', 'year']),
    extra_slots: Type.Integer(),
    extra_bets: Type.Integer(),
    name: Nullable(Type.String()),
    description: Nullable(Type.String()),
  },
  { $id: 'StripePlan', additionalProperties: false },
);
export type StripePlan = Static<typeof StripePlanSchema>;

export const PlansResponseSchema = Type.Object({ plans: Type.Array(ref(StripePlanSchema)) }, { $id: 'PlansResponse', additionalProperties: false });

export const CheckoutRequestSchema = Type.Object(
  { price_id: Type.String({ minLength: 1, maxLength: 255 }) },
  { $id: 'CheckoutRequest', additionalProperties: false },
);
export type CheckoutRequest = Static<typeof CheckoutRequestSchema>;

export const UrlResponseSchema = Type.Object({ url: Type.String({ format: 'uri' }) }, { $id: 'UrlResponse', additionalProperties: false });
