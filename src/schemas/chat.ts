import { type Static, Type } from '@sinclair/typebox';
import { DateTime, Id, Nullable, StringEnum, Url } from './common.js';

export const ChatStatusResponseSchema = Type.Object({ linked: Type.Boolean() }, { $id: 'ChatStatusResponse', additionalProperties: false });

export const ChatLinkCodeResponseSchema = Type.Object(
  { code: Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }), deep_link: Nullable(Url()) },
  { $id: 'ChatLinkCodeResponse', additionalProperties: false },
);

export const ChatUnlinkResponseSchema = Type.Object({ success: Type.Boolean() }, { $id: 'ChatUnlinkResponse', additionalProperties: false });

export const NotificationSchema = Type.Object(
  {
    id: Id(),
    kind: StringEnum(['bet_opened', 'bet_cancelled', 'bet_settled', 'chat_reply'], {
      description: "bet_opened / bet_cancelled: a followed trader's bet; bet_settled: your bet's result; chat_reply: the bot's answer in your chat",
    }),
    text: Type.String({ maxLength: 4096, description: 'A chat message: at most 4096 characters, the limit of the messaging service' }),
    bet_id: Nullable(Id()),
    created_at: DateTime(),
    status: StringEnum(['pending', 'sent', 'failed', 'dropped'], {
      description:
        'pending: queued; sent: delivered; failed: given up or refused by the messaging service; dropped: no longer to be sent (bet cancelled first, chat unlinked)',
    }),
  },
  { $id: 'Notification', additionalProperties: false },
);
export type Notification = Static<typeof NotificationSchema>;
