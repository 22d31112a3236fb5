import { Count, Id, Page, ref, StringEnum, Username } from './common.js';
import { type Static, Type } from '@sinclair/typebox';
import { BetStatusSchema, ClosedBetSchema, closedBetFields, PortfolioBetSchema, thesisFields } from './bets.js';
import { PublicUserSchema } from './users.js';

export const FeedItemSchema = Type.Object(
  {
    ...closedBetFields,
    user_id: Id(),
    username: Username(),
    status: BetStatusSchema,
    ...thesisFields,
  },
  { $id: 'FeedItem', additionalProperties: true },
);
export type FeedItem = Static<typeof FeedItemSchema>;

export const FollowRequestSchema = Type.Object(
  { followed_id: Id(), action: StringEnum(['follow', 'unfollow']) },
  { $id: 'FollowRequest', additionalProperties: false },
);
export type FollowRequest = Static<typeof FollowRequestSchema>;

export const FollowSuccessResponseSchema = Type.Object({ success: Type.Boolean() }, { $id: 'FollowSuccessResponse', additionalProperties: false });

export const PublicProfileResponseSchema = Type.Object(
  {
    user: ref(PublicUserSchema),
    portfolio: Type.Array(ref(PortfolioBetSchema), { description: "The user's open bets: at most their bet_capacity (more only after a downgrade)" }),
    history: Page(ref(ClosedBetSchema)),
    history_total: Count(),
  },
  { $id: 'PublicProfileResponse', additionalProperties: false },
);
