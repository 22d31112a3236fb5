// Account control beside SPEC (DESIGN paths): change password, delete account, export.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { clearSessionCookie } from '../http/auth.js';
import { clientAddressOf } from '../http/client-address.js';
import { principalOf } from '../http/types.js';
import { sessionRoute } from '../http/route-options.js';
import { errorResponses, MessageResponseSchema, ref } from '../schemas/common.js';
import { ChangePasswordRequestSchema, DeleteAccountRequestSchema, ExportedBetSchema, ExportQuerySchema } from '../schemas/me.js';
import { changePassword, deleteAccount, exportBets } from '../services/account-control.js';

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.post(
    '/me/password',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['accounts'],
        operationId: 'changePassword',
        summary: 'Change the password (needs the current one; signs out every other session)',
        body: ref(ChangePasswordRequestSchema),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 503) },
      },
    }),
    async (request) => {
      await changePassword(ctx, principalOf(request), clientAddressOf(request), request.body.current_password, request.body.new_password);
      return { message: 'Password changed; other sessions were signed out' };
    },
  );

  app.delete(
    '/me',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['accounts'],
        operationId: 'deleteAccount',
        summary: 'Delete the account (needs the password); bets stay in the record under an anonymous name',
        body: ref(DeleteAccountRequestSchema),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404, 503) },
      },
    }),
    async (request, reply) => {
      await deleteAccount(ctx, principalOf(request), clientAddressOf(request), request.body.password);
      clearSessionCookie(app, reply);
      return { message: 'Account deleted' };
    },
  );

  app.get(
    '/me/export',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['accounts'],
        operationId: 'exportBets',
        summary: "Download the caller's whole bet history as JSON or CSV (streamed)",
        querystring: ExportQuerySchema,
        response: {
          200: {
            description: 'Every bet of the caller, oldest first',
            content: {
              'application/json': { schema: Type.Array(ref(ExportedBetSchema)) },
              'text/csv': { schema: Type.String() },
            },
          },
          ...errorResponses(400),
        },
      },
    }),
    async (request, reply) => {
      const format = request.query.format ?? 'json';
      const date = new Date(ctx.clock.now()).toISOString().slice(0, 10);
      reply
        .header('content-disposition', `attachment; filename="bets-${date}.${format}"`)
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      // A stream bypasses serialization; each row was built from ExportedBet by toExportedBet.
      return reply.send(exportBets(ctx, principalOf(request).userId, format) as never);
    },
  );
};
