// Stripe's confirmations. Not part of the API document (SPEC: clients must not
// call it). The signature covers the exact bytes received, so this plugin
// keeps the body raw; the rest of the app keeps its strict JSON parser.
import type { FastifyPluginAsync } from 'fastify';
import type { StripePaymentProvider } from '../providers/payments/stripe.js';
import { badRequest } from '../errors.js';
import { handleStripeEvent, hasDataObject, verifiedEvent } from '../services/stripe-events.js';

/** Stripe events can exceed the API's body limit (many invoice lines). */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export const stripeWebhookRoute: FastifyPluginAsync<{ stripe: StripePaymentProvider }> = async (app, { stripe }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => {
    done(null, body);
  });

  app.post(
    '/api/pay/webhook',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        hide: true,
        response: {
          200: { type: 'object', properties: { received: { type: 'boolean' } }, required: ['received'], additionalProperties: false },
        },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['stripe-signature'];
      const event = verifiedEvent(app.ctx, stripe, raw, typeof signature === 'string' ? signature : undefined);
      if (!hasDataObject(event)) {
        request.log.warn({ eventId: event.id, type: event.type }, 'stripe event without data.object');
        throw badRequest('Stripe event without data.object');
      }
      const outcome = await handleStripeEvent(app.ctx, stripe, event);
      request.log.info({ eventId: event.id, type: event.type, outcome }, 'stripe event');
      return { received: true };
    },
  );
};
