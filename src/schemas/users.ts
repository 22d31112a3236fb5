import { type Static, Type } from '@sinclair/typebox';

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    email: Type.String(),
    follow_capacity: Type.Integer(),
    bet_capacity: Type.Integer(),
    pay_subscription_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { $id: 'User', additionalProperties: false },
);
export type User = Static<typeof UserSchema>;

export const PublicUserSchema = Type.Object({ id: Type.Integer(), username: Type.String() }, { $id: 'PublicUser', additionalProperties: false });
export type PublicUser = Static<typeof PublicUserSchema>;

export const RegisterRequestSchema = Type.Object(
  {
    username: Type.String({ minLength: 3, maxLength: 30, pattern: '^[A-Za-z0-9_]+$' }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 15, maxLength: 256 }),
  },
  { $id: 'RegisterRequest', additionalProperties: false },
);
export type RegisterRequest = Static<typeof RegisterRequestSchema>;

export const LoginRequestSchema = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ maxLength: 256 }),
  },
  { $id: 'LoginRequest', additionalProperties: false },
);
export type LoginRequest = Static<typeof LoginRequestSchema>;
