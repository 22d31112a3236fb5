import { type Static, Type } from '@sinclair/typebox';
import { PUSH_KINDS } from '../domain/push.js';
import { DateTime, Id, ref, StringEnum } from './common.js';

export const PushKeyResponseSchema = Type.Object(
  {
    public_key: Type.String({
      maxLength: 100,
      pattern: '^[A-Za-z0-9_-]+$',
      description: "The deployment's VAPID public key (base64url), the applicationServerKey of PushManager.subscribe",
    }),
  },
  { $id: 'PushKeyResponse', additionalProperties: false },
);

export const PushKindSchema = StringEnum([...PUSH_KINDS], {
  $id: 'PushKind',
  description:
    "A notice kind a device may receive, as the chat and email channels carry them: bet_opened / bet_cancelled (a trader you follow), bet_settled (your own bet's result), league_notice (your leagues' start, daily standing and result)",
});

const Kinds = (description: string) => Type.Array(ref(PushKindSchema), { maxItems: PUSH_KINDS.length, uniqueItems: true, description });

export const PushSubscriptionRequestSchema = Type.Object(
  {
    endpoint: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: "PushSubscription.endpoint: an https URL on a browser's push service (Chrome, Firefox, Safari, Edge); any other host is refused",
    }),
    keys: Type.Object(
      {
        p256dh: Type.String({ minLength: 1, maxLength: 100, description: "The device's P-256 public key, base64url (65 bytes)" }),
        auth: Type.String({ minLength: 1, maxLength: 40, description: 'The authentication secret, base64url (16 bytes)' }),
      },
      { additionalProperties: false },
    ),
    expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'As PushSubscription.toJSON() gives it; ignored' })),
    kinds: Type.Optional(Kinds('The notice kinds this device receives; all of them when absent')),
  },
  { $id: 'PushSubscriptionRequest', additionalProperties: false },
);
export type PushSubscriptionRequest = Static<typeof PushSubscriptionRequestSchema>;

export const PushDeviceSchema = Type.Object(
  {
    id: Id(),
    endpoint: Type.String({ maxLength: 2048, description: "The device's push endpoint (a capability URL: only its owner sees it)" }),
    kinds: Kinds('The notice kinds this device receives'),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { $id: 'PushDevice', additionalProperties: false },
);
export type PushDevice = Static<typeof PushDeviceSchema>;

export const PushDeviceListSchema = Type.Object(
  { devices: Type.Array(ref(PushDeviceSchema), { maxItems: 100 }) },
  { $id: 'PushDeviceList', additionalProperties: false },
);
