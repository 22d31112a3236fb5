// Web Push (docs/push.md): the VAPID public key, and each device's
// subscription with the notice kinds it receives.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { principalOf } from '../http/types.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';
import { errorResponses, Id, Limit403, MessageResponseSchema, ref } from '../schemas/common.js';
import { PushDeviceListSchema, PushDeviceSchema, PushKeyResponseSchema, PushSubscriptionRequestSchema } from '../schemas/push.js';
import { listPushDevices, subscribePush, unsubscribePush } from '../services/push.js';

const tags = ['push'];

export const pushRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.get(
    '/push/key',
    publicRoute(app, {
      limit: 'reads',
      schema: {
        tags,
        operationId: 'getPushKey',
        summary: "The deployment's VAPID public key, to subscribe a browser to Web Push",
        response: { 200: ref(PushKeyResponseSchema) },
      },
    }),
    async () => ({ public_key: ctx.push.publicKey }),
  );

  app.get(
    '/push/subscriptions',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags,
        operationId: 'listPushSubscriptions',
        summary: "The caller's devices that receive push notices, with the kinds each receives",
        response: { 200: ref(PushDeviceListSchema) },
      },
    }),
    async (request) => listPushDevices(ctx, principalOf(request).userId),
  );

  app.post(
    '/push/subscriptions',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'createPushSubscription',
        summary: "Register this device's Web Push subscription and the notice kinds it receives",
        description:
          "The body is PushSubscription.toJSON() with an optional `kinds`. Only endpoints on the browsers' push services are accepted (400 otherwise). The same endpoint again updates its keys and kinds (200); a new device is 201. At most 20 devices per account (403 LIMIT_REACHED).",
        body: ref(PushSubscriptionRequestSchema),
        response: { 200: ref(PushDeviceSchema), 201: ref(PushDeviceSchema), ...errorResponses(400, 413, 415), 403: Limit403 },
      },
    }),
    async (request, reply) => {
      const { created, device } = await subscribePush(ctx, principalOf(request).userId, request.body);
      return reply.code(created ? 201 : 200).send(device);
    },
  );

  app.delete(
    '/push/subscriptions/:id',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags,
        operationId: 'deletePushSubscription',
        summary: 'Stop push notices to one of your devices',
        params: Type.Object({ id: Id() }),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 403, 404) },
      },
    }),
    async (request) => {
      await unsubscribePush(ctx, principalOf(request).userId, request.params.id);
      return { message: 'Device removed' };
    },
  );
};
