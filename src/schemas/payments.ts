import { type Static, Type } from '@sinclair/typebox';
import { Count, Nullable, ref, StringEnum, Text } from './common.js';

export const StripePlanSchema = Type.Object(
  {
    price_id: Type.String({ minLength: 1, maxLength: 255 }),
    amount: Count({ description: 'In the smallest currency unit' }),
    currency: Type.String({ minLength: 3, maxLength: 3, pattern: '^[a-z]{3}$', description: 'ISO 4217, lower-case' }),
    interval: StringEnum(['day', 'week', 'month', 'year']),
    extra_slots: Count(),
    extra_bets: Count(),
    name: Nullable(Type.String({ maxLength: 5000 })),
    description: Nullable(Type.String({ maxLength: 5000 })),
  },
  { $id: 'StripePlan', additionalProperties: false },
);
export type StripePlan = Static<typeof StripePlanSchema>;

export const PlansResponseSchema = Type.Object(
  { plans: Type.Array(ref(StripePlanSchema), { description: 'Every plan the payment provider offers' }) },
  { $id: 'PlansResponse', additionalProperties: false },
);

export const CheckoutRequestSchema = Type.Object(
  { price_id: Text({ minLength: 1, maxLength: 255 }) },
  { $id: 'CheckoutRequest', additionalProperties: false },
);
export type CheckoutRequest = Static<typeof CheckoutRequestSchema>;

/** Hosted checkout addresses are long (a session id and a fragment): 8 KiB covers them. */
export const UrlResponseSchema = Type.Object(
  { url: Type.String({ format: 'uri', maxLength: 8192 }) },
  { $id: 'UrlResponse', additionalProperties: false },
);
