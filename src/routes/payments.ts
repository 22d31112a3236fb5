// Plans, checkout and customer portal (SPEC), whichever provider is configured.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../http/types.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';
import { errorResponses, ref } from '../schemas/common.js';
import { CheckoutRequestSchema, PlansResponseSchema, UrlResponseSchema } from '../schemas/payments.js';
import { StripePaymentProvider } from '../providers/payments/stripe.js';
import { listPlans, openPortal, startCheckout } from '../services/payments.js';
import { localPayPages } from './local-pay-pages.js';
import { stripeWebhookRoute } from './stripe-webhook.js';

export const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;

  app.get(
    '/api/pay/plans',
    publicRoute(app, {
      limit: 'none',
      schema: {
        tags: ['payments'],
        operationId: 'getPlans',
        summary: 'Subscription plans and what each adds',
        response: { 200: ref(PlansResponseSchema), ...errorResponses(500) },
      },
    }),
    async (request) => ({ plans: await listPlans(ctx, request.log) }),
  );

  app.post(
    '/api/pay/checkout',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['payments'],
        operationId: 'startCheckout',
        summary: 'Start a hosted checkout for a plan (changes nothing until the provider confirms)',
        body: ref(CheckoutRequestSchema),
        response: { 200: ref(UrlResponseSchema), ...errorResponses(400, 403, 409, 500) },
      },
    }),
    async (request) => ({ url: await startCheckout(ctx, request.log, principalOf(request).userId, request.body.price_id) }),
  );

  app.post(
    '/api/pay/portal',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['payments'],
        operationId: 'openPortal',
        summary: 'Open the customer portal',
        response: { 200: ref(UrlResponseSchema), ...errorResponses(400, 403, 500) },
      },
    }),
    async (request) => ({ url: await openPortal(ctx, request.log, principalOf(request).userId) }),
  );

  // Provider-specific endpoints, each in its own encapsulated plugin (own body parsers).
  const provider = ctx.payments;
  if (provider instanceof StripePaymentProvider) await app.register(stripeWebhookRoute, { stripe: provider });
  else await app.register(localPayPages);
};
