// Every named schema, registered once with Fastify (addSchema) so routes refer
// to them by $id and the OpenAPI document lists them under SPEC's names.
import type { TSchema } from '@sinclair/typebox';
import * as alerts from './alerts.js';
import * as bets from './bets.js';
import * as chat from './chat.js';
import * as common from './common.js';
import * as consensus from './consensus.js';
import * as discovery from './discovery.js';
import * as email from './email.js';
import * as instruments from './instruments.js';
import * as leagues from './leagues.js';
import * as me from './me.js';
import * as rankings from './rankings.js';
import * as record from './record.js';
import * as stats from './stats.js';
import * as payments from './payments.js';
import * as push from './push.js';
import * as social from './social.js';
import * as users from './users.js';

export const sharedSchemas: TSchema[] = [
  common.ErrorSchema,
  common.LimitErrorSchema,
  common.CancelWindowErrorSchema,
  common.MessageResponseSchema,
  users.UserSchema,
  users.PublicUserSchema,
  users.RegisterRequestSchema,
  users.LoginRequestSchema,
  bets.PortfolioBetSchema,
  bets.ClosedBetSchema,
  bets.LeaderboardUserSchema,
  bets.OpenBetRequestSchema,
  bets.OpenBetResponseSchema,
  bets.CloseBetRequestSchema,
  bets.CloseBetResponseSchema,
  bets.CancelBetResponseSchema,
  bets.TickerPriceResponseSchema,
  bets.PriceHistoryResponseSchema,
  bets.BetDetailSchema,
  bets.ThesisActionResponseSchema,
  bets.SetExitsRequestSchema,
  bets.BetExitsSchema,
  social.FeedItemSchema,
  social.FollowRequestSchema,
  social.FollowSuccessResponseSchema,
  social.PublicProfileResponseSchema,
  payments.StripePlanSchema,
  payments.PlansResponseSchema,
  payments.CheckoutRequestSchema,
  payments.UrlResponseSchema,
  chat.ChatStatusResponseSchema,
  chat.ChatLinkCodeResponseSchema,
  chat.ChatUnlinkResponseSchema,
  chat.NotificationSchema,
  chat.NoticeReadStateSchema,
  chat.MarkNoticesReadRequestSchema,
  email.EmailStateSchema,
  email.EmailResultSchema,
  email.ChangeEmailRequestSchema,
  email.ForgotPasswordRequestSchema,
  email.ResetPasswordRequestSchema,
  email.NoticeSettingsSchema,
  discovery.HealthResponseSchema,
  discovery.ApiCatalogSchema,
  discovery.ProtectedResourceMetadataSchema,
  me.ChangePasswordRequestSchema,
  me.DeleteAccountRequestSchema,
  me.ExportedBetSchema,
  leagues.LeagueRulesSchema,
  leagues.CreateLeagueRequestSchema,
  leagues.UpdateLeagueRequestSchema,
  leagues.JoinLeagueRequestSchema,
  leagues.LeagueSummarySchema,
  leagues.LeagueListSchema,
  leagues.LeagueMemberSchema,
  leagues.LeagueSchema,
  leagues.InviteCodeResponseSchema,
  leagues.LeagueBoardRowSchema,
  leagues.LeagueBoardSchema,
  leagues.LeagueFeedItemSchema,
  leagues.LeagueFeedSchema,
  leagues.LeagueBoardDocumentSchema,
  leagues.LeagueProofSchema,
  record.RecordEventSchema,
  record.RecordDaySchema,
  record.UserRecordSchema,
  stats.TraderStatsSchema,
  rankings.RankingRowSchema,
  rankings.RankingsResponseSchema,
  rankings.StandingWindowSchema,
  rankings.MyStandingResponseSchema,
  instruments.MarketStatusSchema,
  instruments.InstrumentQuoteSchema,
  instruments.InstrumentSchema,
  instruments.InstrumentListResponseSchema,
  instruments.InstrumentChartResponseSchema,
  consensus.ConsensusCallSchema,
  consensus.ConsensusResponseSchema,
  alerts.CreateAlertRequestSchema,
  alerts.AlertSchema,
  alerts.AlertListSchema,
  push.PushKeyResponseSchema,
  push.PushKindSchema,
  push.PushSubscriptionRequestSchema,
  push.PushDeviceSchema,
  push.PushDeviceListSchema,
];
