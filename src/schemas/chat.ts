import { type Static, Type } from '@sinclair/typebox';
import { Count, DateTime, Id, Nullable, ServerText, Url } from './common.js';

export const ChatStatusResponseSchema = Type.Object({ linked: Type.Boolean() }, { $id: 'ChatStatusResponse', additionalProperties: false });

export const ChatLinkCodeResponseSchema = Type.Object(
  { code: Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }), deep_link: Nullable(Url()) },
  { $id: 'ChatLinkCodeResponse', additionalProperties: false },
);

export const ChatUnlinkResponseSchema = Type.Object({ success: Type.Boolean() }, { $id: 'ChatUnlinkResponse', additionalProperties: false });

export const NotificationSchema = Type.Object(
  {
    id: Type.String({
      maxLength: 40,
      pattern: '^[a-z]+-[0-9]+$',
      description: "Stable key of the notice: 'opened-{bet_id}' / 'cancelled-{bet_id}' for a followed trader's bet, 'notice-{n}' for a stored notice",
    }),
    kind: Type.String({
      maxLength: 64,
      pattern: '^[a-z][a-z0-9_]*$',
      description:
        "bet_opened / bet_cancelled: a bet of a trader you follow (listed from the follow's start while you follow them); other kinds are account, settlement and league notices (bet_settled, account_password_changed, league_started, …)",
    }),
    text: ServerText(),
    bet_id: Nullable(Id({ description: "The followed trader's bet, for bet_opened and bet_cancelled" })),
    link: Nullable(Type.String({ maxLength: 500, description: "A path of the web app to open ('bet/12'), relative to the web app's address" })),
    created_at: DateTime(),
    read: Type.Boolean({ description: 'At or before the read marker (POST /notifications/read)' }),
  },
  { $id: 'Notification', additionalProperties: false },
);
export type Notification = Static<typeof NotificationSchema>;

export const NoticeReadStateSchema = Type.Object(
  {
    unread: Count({ description: 'Notices after the read marker' }),
    read_until: Nullable(
      DateTime({ description: 'The read marker: notices at or before it are read; null before the first POST /notifications/read' }),
    ),
  },
  { $id: 'NoticeReadState', additionalProperties: false },
);
export type NoticeReadState = Static<typeof NoticeReadStateSchema>;

export const MarkNoticesReadRequestSchema = Type.Object(
  {
    until: Type.Optional(
      DateTime({
        description:
          "Marks read every notice at or before this instant (the newest notice's created_at); now when absent. Never moves the marker back.",
      }),
    ),
  },
  { $id: 'MarkNoticesReadRequest', additionalProperties: false },
);
