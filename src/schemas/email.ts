// Email: verification, password reset, change of address, notice settings, unsubscribe.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, ServerText, StringEnum } from './common.js';

/** RFC 5321's longest address, as registration. */
const EMAIL_MAX = 320;
const Email = (description?: string) => Type.String({ format: 'email', maxLength: EMAIL_MAX, ...(description ? { description } : {}) });
/** A one-time link's token: 256 random bits, base64url (43 characters). */
const OneTimeToken = () => Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$', description: 'The token from the emailed link' });

export const EmailTokenQuerySchema = Type.Object({ token: OneTimeToken() }, { additionalProperties: false });

export const UnsubscribeQuerySchema = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100, pattern: '^[0-9]+\\.[A-Za-z0-9_-]+$', description: 'The token of the unsubscribe link' }) },
  { additionalProperties: false },
);

export const EmailStateSchema = Type.Object(
  {
    email: Email(),
    email_verified: Type.Boolean({ description: 'Whether this address was confirmed through its emailed link' }),
    pending_email: Nullable(Email('An address asked for with POST /me/email and not yet confirmed')),
  },
  { $id: 'EmailState', additionalProperties: false },
);
export type EmailState = Static<typeof EmailStateSchema>;

export const EmailResultSchema = Type.Object({ message: ServerText(), email: Email() }, { $id: 'EmailResult', additionalProperties: false });
export type EmailResult = Static<typeof EmailResultSchema>;

export const ChangeEmailRequestSchema = Type.Object(
  { new_email: Email(), password: Type.String({ format: 'password', maxLength: 256 }) },
  { $id: 'ChangeEmailRequest', additionalProperties: false },
);

export const ForgotPasswordRequestSchema = Type.Object({ email: Email() }, { $id: 'ForgotPasswordRequest', additionalProperties: false });

export const ResetPasswordRequestSchema = Type.Object(
  { token: OneTimeToken(), new_password: Type.String({ format: 'password', minLength: 15, maxLength: 256 }) },
  { $id: 'ResetPasswordRequest', additionalProperties: false },
);

export const NoticeSettingsSchema = Type.Object(
  {
    email_notices: StringEnum(['off', 'each', 'digest'], {
      description: "Followed traders' openings and cancellations by email: off, each as it happens, or a daily digest (needs a verified address)",
    }),
    digest_hour: Type.Integer({ format: 'int32', minimum: 0, maximum: 23, description: 'The hour (0–23) the daily digest is sent, in time_zone' }),
    time_zone: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_+/-]+$',
      description: 'An IANA time zone, such as Europe/Paris or UTC',
    }),
  },
  { $id: 'NoticeSettings', additionalProperties: false },
);
export type NoticeSettings = Static<typeof NoticeSettingsSchema>;
