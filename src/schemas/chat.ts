import { type Static, Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common.js';

export const ChatStatusResponseSchema = Type.Object({ linked: Type.Boolean() }, { $id: 'ChatStatusResponse', additionalProperties: false });

export const ChatLinkCodeResponseSchema = Type.Object(
  { code: Type.String(), deep_link: Nullable(Type.String({ format: 'uri' })) },
  { $id: 'ChatLinkCodeResponse', additionalProperties: false },
);

export const ChatUnlinkResponseSchema = Type.Object({ success: Type.Boolean() }, { $id: 'ChatUnlinkResponse', additionalProperties: false });

export const NotificationSchema = Type.Object(
  {
    id: Type.Integer(),
    kind: StringEnum(['bet_opened', 'bet_cancelled', 'bet_settled', 'chat_reply'], {
      description: "bet_opened / bet_cancelled: a followed trader's bet; bet_settled: your bet's result; chat_reply: the bot's answer in your chat",
    }),
    text: Type.String(),
    bet_id: Nullable(Type.Integer()),
    created_at: Type.String({ format: 'date-time' }),
    status: StringEnum(['pending', 'sent', 'failed', 'dropped'], {
      description:
        'pending: queued; sent: delivered; failed: given up or refused by the messaging service; dropped: no longer to be sent (bet cancelled first, chat unlinked)',
    }),
  },
  { $id: 'Notification', additionalProperties: false },
);
export type Notification = Static<typeof NotificationSchema>;
