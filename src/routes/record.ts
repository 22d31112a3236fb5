// The verifiable record (DESIGN paths): public, like profiles.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { publicRoute } from '../http/route-options.js';
import { DateString, errorResponses, Id, ref } from '../schemas/common.js';
import { RecordDaySchema, UserRecordSchema } from '../schemas/record.js';
import { recordDay, recordHead, userRecord } from '../services/record.js';

export const recordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.get(
    '/record/head',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['record'],
        operationId: 'getRecordHead',
        summary: "The latest published daily Merkle root over every user's chain head",
        response: { 200: ref(RecordDaySchema) },
      },
    }),
    async () => recordHead(ctx),
  );

  app.get(
    '/record/days/:date',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['record'],
        operationId: 'getRecordDay',
        summary: 'The Merkle root published for an ended UTC day',
        params: Type.Object({ date: DateString() }),
        response: { 200: ref(RecordDaySchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => recordDay(ctx, request.params.date),
  );

  app.get(
    '/record/user/:user_id',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags: ['record'],
        operationId: 'getUserRecord',
        summary: "A user's hash chain, current bets and the proof that its head is in the latest published root",
        description: 'Check it offline with `npm run verify-log -- FILE_OR_URL`.',
        params: Type.Object({ user_id: Id() }),
        response: { 200: ref(UserRecordSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => userRecord(ctx, request.params.user_id),
  );
};
