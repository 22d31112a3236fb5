// Price alerts (DESIGN: GET, POST /alerts, DELETE /alerts/{alert_id}; docs/alerts.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sessionRoute } from '../http/route-options.js';
import { principalOf } from '../http/types.js';
import { AlertListSchema, AlertSchema, CreateAlertRequestSchema } from '../schemas/alerts.js';
import { errorResponses, Id, Limit403, MessageResponseSchema, PageQuerySchema, ref } from '../schemas/common.js';
import { createAlert, listAlerts, removeAlert } from '../services/alerts.js';

const tags = ['alerts'];

export const alertRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.post(
    '/alerts',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags,
        operationId: 'createAlert',
        summary: 'Set a price alert; answers it with its id',
        description:
          '`above`/`below`: fires at the first published quote at or beyond the price `value`; `move`: when the change since ' +
          "the previous close (the directory's `change_percent`) reaches `value` % either way. The quote in force when it is set " +
          'counts: an alert already met fires at once, at that quote. Each fires once, with the price and instant of the quote ' +
          'that met it, and is told in the app, a linked chat and by email (per the notice settings). At BASE_ALERT_CAPACITY ' +
          "active alerts (plus the plan's extra_alerts) 403 LIMIT_REACHED with the limit. A badly formed ticker is 400, an " +
          'unknown one 404; 503 with Retry-After while the price provider is down.',
        body: ref(CreateAlertRequestSchema),
        response: { 201: ref(AlertSchema), ...errorResponses(400, 404, 413, 415, 503), 403: Limit403 },
      },
    }),
    async (request, reply) => reply.code(201).send(await createAlert(ctx, principalOf(request).userId, request.body)),
  );

  app.get(
    '/alerts',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags,
        operationId: 'listAlerts',
        summary: "The caller's alerts, active and fired, newest first",
        querystring: PageQuerySchema,
        response: { 200: ref(AlertListSchema), ...errorResponses(400) },
      },
    }),
    async (request) => listAlerts(ctx, principalOf(request).userId, request.query),
  );

  app.delete(
    '/alerts/:alert_id',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags,
        operationId: 'deleteAlert',
        summary: "Remove one of the caller's alerts (active or fired)",
        description: "Another user's alert is 404, as a missing one: an id reveals nothing.",
        params: Type.Object({ alert_id: Id() }),
        response: { 200: ref(MessageResponseSchema), ...errorResponses(400, 404) },
      },
    }),
    async (request) => removeAlert(ctx, principalOf(request).userId, request.params.alert_id),
  );
};
