import { ref, StringEnum } from './common.js';
import { type Static, Type } from '@sinclair/typebox';
import { BetStatusSchema, ClosedBetSchema, closedBetFields, PortfolioBetSchema } from './bets.js';
import { PublicUserSchema } from './users.js';

export const FeedItemSchema = Type.Object(
  {
    ...closedBetFields,
    user_id: Type.Integer(),
    username: Type.String(),
    status: BetStatusSchema,
  },
  { $id: 'FeedItem', additionalProperties: true },
);
export type FeedItem = Static<typeof FeedItemSchema>;

export const FollowRequestSchema = Type.Object(
  { followed_id: Type.Integer(), action: StringEnum(['follow', 'unfollow']) },
  { $id: 'FollowRequest', additionalProperties: false },
);
export type FollowRequest = Static<typeof FollowRequestSchema>;

export const FollowSuccessResponseSchema = Type.Object({ success: Type.Boolean() }, { $id: 'FollowSuccessResponse', additionalProperties: false });

export const PublicProfileResponseSchema = Type.Object(
  {
    user: ref(PublicUserSchema),
    portfolio: Type.Array(ref(PortfolioBetSchema)),
    history: Type.Array(ref(ClosedBetSchema)),
    history_total: Type.Integer(),
  },
  { $id: 'PublicProfileResponse', additionalProperties: false },
);
