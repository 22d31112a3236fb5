// The verifiable record (DESIGN paths): public, like profiles.
import { Readable } from 'node:stream';
import build from 'fast-json-stringify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { publicRoute } from '../http/route-options.js';
import { DateString, errorResponses, Id, ref } from '../schemas/common.js';
import { RecordDaySchema, type UserRecord, UserRecordSchema } from '../schemas/record.js';
import { recordDay, recordHead, userRecordHead, userRecordText } from '../services/record.js';

export const recordRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  // The response schema's own serializer of the bets, for a slice of them at a time (userRecordText); built when
  // first used, as the routes' serializers are (src/http/serialization.ts).
  let serializeBets: ((bets: UserRecord['bets']) => string) | undefined;
  const betsText = (bets: UserRecord['bets']) => {
    serializeBets ??= build(UserRecordSchema.properties.bets) as (bets: UserRecord['bets']) => string;
    return serializeBets(bets);
  };

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
    async (request, reply) => {
      const head = await userRecordHead(ctx, request.params.user_id);
      // Serialized by the response schema without its entries and bets, which are sent a slice at a time (userRecordText).
      const shell = reply.serialize({ user_id: head.userId, entries: [], bets: [], proof: head.proof }) as string;
      reply.type('application/json; charset=utf-8');
      // The stream is the schema's answer in bytes (test/integration/record-stream.test.ts checks it against the schema).
      return reply.send(Readable.from(textAsBytes(userRecordText(ctx, head, shell, betsText)), { objectMode: false }) as never);
    },
  );
};

async function* textAsBytes(pieces: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const piece of pieces) yield Buffer.from(piece);
}
