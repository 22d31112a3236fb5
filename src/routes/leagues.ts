// Leagues (DESIGN paths; docs/leagues.md). Public leagues' pages, boards,
// feeds and proofs are readable by anyone; a private league's only by its
// members (404 to everyone else).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { optionalSessionRoute, sessionRoute } from '../http/route-options.js';
import { principalOf } from '../http/types.js';
import { errorResponses, Id, Limit403, MessageResponseSchema, PageQuerySchema, ref } from '../schemas/common.js';
import {
  CreateLeagueRequestSchema,
  InviteCodeResponseSchema,
  JoinLeagueRequestSchema,
  LeagueBoardSchema,
  LeagueFeedSchema,
  LeagueListQuerySchema,
  LeagueListSchema,
  LeagueProofSchema,
  LeagueSchema,
  UpdateLeagueRequestSchema,
} from '../schemas/leagues.js';
import { leagueBoard, leagueFeed, leagueProof } from '../services/league-boards.js';
import {
  createLeague,
  deleteLeagueAs,
  getLeague,
  joinByCode,
  joinById,
  leaveLeague,
  listLeaguesFor,
  removeMember,
  rotateCode,
  updateLeagueAs,
} from '../services/leagues.js';

const tags = ['leagues'];
const IdParams = Type.Object({ id: Id() });
const PRIVATE_404 = 'A private league answers 404 to everyone but its members, so an id reveals nothing.';

export const leagueRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.post(
    '/leagues',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'createLeague',
        summary: 'Create a league (the caller owns it); answers it with its invite code',
        description:
          'A user is in at most LEAGUE_LIMIT leagues that have not ended (a plan may add more); beyond it 403 LIMIT_REACHED with the limit.',
        body: ref(CreateLeagueRequestSchema),
        response: { 201: ref(LeagueSchema), ...errorResponses(400, 413, 415), 403: Limit403 },
      },
    }),
    async (request, reply) => reply.code(201).send(await createLeague(ctx, principalOf(request).userId, request.body)),
  );

  app.get(
    '/leagues',
    optionalSessionRoute(app, {
      schema: {
        tags,
        operationId: 'listLeagues',
        summary: "The caller's leagues and public leagues open to join, paged",
        description:
          "With a session: the caller's leagues (newest start first), then public leagues not yet started that the caller is not in " +
          '(soonest first). Without one: the public leagues open to join. With `code`: the league that invite code opens.',
        querystring: LeagueListQuerySchema,
        response: { 200: ref(LeagueListSchema), ...errorResponses(400) },
      },
    }),
    async (request) => listLeaguesFor(ctx, request.principal?.userId ?? null, request.query),
  );

  app.post(
    '/leagues/join',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'joinLeagueByCode',
        summary: 'Join a league with its invite code (until it starts); joining again is a success',
        body: ref(JoinLeagueRequestSchema),
        response: {
          200: ref(LeagueSchema),
          ...errorResponses(400, 404, 409, 413, 415),
          403: Limit403,
        },
      },
    }),
    async (request) => joinByCode(ctx, principalOf(request).userId, request.body.code),
  );

  app.post(
    '/leagues/:id/join',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'joinLeague',
        summary: 'Join a public league by id (until it starts); 409 once started or full',
        description: PRIVATE_404,
        params: IdParams,
        response: { 200: ref(LeagueSchema), ...errorResponses(400, 404, 409), 403: Limit403 },
      },
    }),
    async (request) => joinById(ctx, principalOf(request).userId, request.params.id),
  );

  app.get(
    '/leagues/:id',
    optionalSessionRoute(app, {
      schema: {
        tags,
        operationId: 'getLeague',
        summary: "A league's rules, members and status",
        description: `${PRIVATE_404} The invite code is shown to members only.`,
        params: IdParams,
        response: { 200: ref(LeagueSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => getLeague(ctx, request.params.id, request.principal?.userId ?? null),
  );

  app.patch(
    '/leagues/:id',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'updateLeague',
        summary: 'Edit a league before its start (owner); a member sets their own daily standing at any time',
        description:
          'Name, description, window, visibility, member limit and rules: the owner only (403 to others), and 409 once the league has started.',
        params: IdParams,
        body: ref(UpdateLeagueRequestSchema),
        response: { 200: ref(LeagueSchema), ...errorResponses(400, 403, 404, 409, 413, 415) },
      },
    }),
    async (request) => updateLeagueAs(ctx, request.params.id, principalOf(request).userId, request.body),
  );

  app.delete(
    '/leagues/:id',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'deleteLeague',
        summary: 'Delete a league before its start (owner)',
        params: IdParams,
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 409) },
      },
    }),
    async (request) => {
      await deleteLeagueAs(ctx, request.params.id, principalOf(request).userId);
      return { message: 'League deleted' };
    },
  );

  app.get(
    '/leagues/:id/board',
    optionalSessionRoute(app, {
      schema: {
        tags,
        operationId: 'getLeagueBoard',
        summary: "A league's board: rank, member, score, counted trades, cancel rate; final and frozen after the end",
        description:
          `${PRIVATE_404} Counted from each member's tally of finished bets plus the bets still open. While the league runs, ` +
          'open bets are marked at current prices and the board is shared for at most a second; from the end on they are ' +
          'marked at the first quote published at or after the end (`ended`), and once settled the board is frozen (`final`, with `settled_at`).',
        params: IdParams,
        response: { 200: ref(LeagueBoardSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => leagueBoard(ctx, request.params.id, request.principal?.userId ?? null),
  );

  app.get(
    '/leagues/:id/feed',
    optionalSessionRoute(app, {
      schema: {
        tags,
        operationId: 'getLeagueFeed',
        summary: "Members' bets opened within the league's window, newest first",
        description: PRIVATE_404,
        params: IdParams,
        querystring: PageQuerySchema,
        response: { 200: ref(LeagueFeedSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => leagueFeed(ctx, request.params.id, request.principal?.userId ?? null, request.query),
  );

  app.get(
    '/leagues/:id/proof',
    optionalSessionRoute(app, {
      schema: {
        tags,
        operationId: 'getLeagueProof',
        summary: "A finished league's final board, its hash, the members' chain heads and the Merkle proof of its day",
        description: `${PRIVATE_404} 404 until the board is settled and its day published. Check it with \`npm run verify-log -- FILE_OR_URL\`.`,
        params: IdParams,
        response: { 200: ref(LeagueProofSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => leagueProof(ctx, request.params.id, request.principal?.userId ?? null),
  );

  app.post(
    '/leagues/:id/leave',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'leaveLeague',
        summary: 'Leave a league: before the start the membership goes; after it the member stays on the board to the end',
        description: 'The owner cannot leave (400); 409 once the league has ended.',
        params: IdParams,
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 409) },
      },
    }),
    async (request) => {
      await leaveLeague(ctx, request.params.id, principalOf(request).userId);
      return { message: 'You left the league' };
    },
  );

  app.delete(
    '/leagues/:id/members/:user_id',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'removeLeagueMember',
        summary: 'Remove a member before the start (owner)',
        params: Type.Object({ id: Id(), user_id: Id() }),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 409) },
      },
    }),
    async (request) => {
      await removeMember(ctx, request.params.id, principalOf(request).userId, request.params.user_id);
      return { message: 'Member removed' };
    },
  );

  app.post(
    '/leagues/:id/code',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'rotateLeagueCode',
        summary: 'Replace the invite code before the start (owner); the old code stops working',
        params: IdParams,
        response: { 200: ref(InviteCodeResponseSchema), ...errorResponses(400, 403, 404, 409) },
      },
    }),
    async (request) => rotateCode(ctx, request.params.id, principalOf(request).userId),
  );
};
