import { type Static, Type } from '@sinclair/typebox';
import { Count, Id, Username } from './common.js';

/** RFC 5321's longest address; registration enforces it. */
const EMAIL_MAX = 320;

export const UserSchema = Type.Object(
  {
    id: Id(),
    username: Username(),
    email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
    follow_capacity: Count(),
    bet_capacity: Count(),
    pay_subscription_id: Type.Optional(Type.Union([Type.String({ maxLength: 255, pattern: '^[A-Za-z0-9_]+$' }), Type.Null()])),
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof UserSchema>;

export const PublicUserSchema = Type.Object({ id: Id(), username: Username() }, { $id: 'PublicUser', additionalProperties: false });
export type PublicUser = Static<typeof PublicUserSchema>;

export const RegisterRequestSchema = Type.Object(
  {
    username: Type.String({ minLength: 3, maxLength: 30, pattern: '^[A-Za-z0-9_]+$' }),
    email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
    password: Type.String({ format: 'password', minLength: 15, maxLength: 256 }),
  },
  { $id: 'RegisterRequest', additionalProperties: false },
);
export type RegisterRequest = Static<typeof RegisterRequestSchema>;

export const LoginRequestSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: EMAIL_MAX }),
    password: Type.String({ format: 'password', maxLength: 256 }),
  },
  { $id: 'LoginRequest', additionalProperties: false },
);
export type LoginRequest = Static<typeof LoginRequestSchema>;
