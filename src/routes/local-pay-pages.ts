// The local payment provider's pages (DESIGN: /pay/local/checkout/{id},
// /pay/local/portal): server-rendered HTML with plain form posts, no script.
// Only this plugin accepts form bodies; the JSON API keeps refusing them.
// Cross-site form posts are refused by the app-wide cross-site check.
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../errors.js';
import { noteFailure } from '../http/logging.js';
import { principalOf } from '../http/types.js';
import { sessionRoute } from '../http/route-options.js';
import { html, page, type SafeHtml } from '../lib/html.js';
import { NO_NUL_PATTERN } from '../schemas/common.js';
import type { StripePlan } from '../schemas/payments.js';
import { checkoutUrls } from '../services/payments.js';
import {
  cancelLocalSubscription,
  confirmLocalCheckout,
  type LocalPortalView,
  localCheckoutView,
  localPortalView,
  resumeLocalSubscription,
  switchLocalPlan,
} from '../services/local-payments.js';

const SIMULATION = html`<p class="notice"><strong>Simulation.</strong> This is the service's built-in stand-in for a payment
provider: no card is asked for, no money moves. Confirming grants the plan at once, as a real provider's
confirmation would.</p>`;

export function formatAmount(amount: number, currency: string): string {
  try {
    const fmt = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    return fmt.format(amount / 10 ** (fmt.resolvedOptions().maximumFractionDigits ?? 2));
  } catch {
    return `${amount} ${currency}`;
  }
}

function planBlock(plan: StripePlan): SafeHtml {
  return html`<div class="plan">
<h2>${plan.name ?? plan.price_id}</h2>
${plan.description ? html`<p>${plan.description}</p>` : ''}
<p><strong>${formatAmount(plan.amount, plan.currency)}</strong> per ${plan.interval}</p>
<p>Adds ${plan.extra_bets} open bets and ${plan.extra_slots} followed traders.</p>
</div>`;
}

function sendPage(reply: FastifyReply, status: number, title: string, body: SafeHtml): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(page(title, html`<h1>${title}</h1>${body}`));
}

const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const ERROR_PAGE = htmlResponse('Error page');
const errorPages = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ERROR_PAGE]));
const redirect = { description: 'See Other: back to the web app or the portal', type: 'null' };
/** Pages for a browser: the API's strict query rule does not apply to them. */
const AnyQuery = { type: 'object', properties: {}, additionalProperties: true } as const;
const IdParams = {
  type: 'object',
  properties: { id: { type: 'string', minLength: 1, maxLength: 100, pattern: NO_NUL_PATTERN } },
  required: ['id'],
  additionalProperties: false,
} as const;

export const localPayPages: FastifyPluginAsync = async (app) => {
  const { ctx } = app;
  const web = ctx.config.webUrl;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // Pages showing a user's account are theirs only: never cached anywhere.
  // The form posts redirect to the web app, which form-action must allow when it lives elsewhere.
  const webOrigin = new URL(web).origin;
  const extraFormAction = webOrigin === new URL(ctx.config.publicUrl).origin ? null : webOrigin;
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    const csp = reply.getHeader('content-security-policy');
    if (extraFormAction && typeof csp === 'string') {
      reply.header('content-security-policy', csp.replace("form-action 'self'", `form-action 'self' ${extraFormAction}`));
    }
  });
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    if (err instanceof AppError && err.statusCode < 500) {
      const links =
        err.statusCode === 401
          ? html`<p><a href="${web}">Log in</a> first, then open this page again.</p>`
          : html`<p><a href="${web}">Back to the app</a></p>`;
      return sendPage(reply, err.statusCode, 'Something went wrong', html`<p>${err.body.error}</p>${links}`);
    }
    const status = (err as FastifyError).statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return sendPage(reply, status, 'Something went wrong', html`<p>The request was not understood.</p><p><a href="${web}">Back to the app</a></p>`);
    }
    noteFailure(request, err);
    return sendPage(reply, 500, 'Something went wrong', html`<p>Internal server error.</p>`);
  });

  const tags = ['payments (local provider)'];

  app.get<{ Params: { id: string } }>(
    '/pay/local/checkout/:id',
    sessionRoute(app, {
      limit: 'none',
      errorAnswer: ERROR_PAGE,
      schema: {
        tags,
        operationId: 'getLocalCheckoutPage',
        summary: 'Local checkout page (simulation): confirm or go back',
        params: IdParams,
        querystring: AnyQuery,
        response: { 200: htmlResponse('Checkout page'), ...errorPages(400, 404, 500) },
      },
    }),
    async (request, reply) => {
      const view = await localCheckoutView(ctx, principalOf(request).userId, request.params.id);
      const action = `/pay/local/checkout/${encodeURIComponent(view.id)}/confirm`;
      let body: SafeHtml;
      if (view.status === 'completed') body = html`<p>This checkout is complete: your plan is active.</p>`;
      else if (view.status === 'expired') body = html`<p>This checkout has expired. Start a new one from the app.</p>`;
      else if (view.alreadySubscribed) body = html`<p>You already have a subscription. Manage it in the portal.</p>`;
      else if (!view.plan) body = html`<p>This plan is no longer offered. Start a new checkout from the app.</p>`;
      else
        body = html`${planBlock(view.plan)}
<form method="post" action="${action}"><button type="submit">Confirm subscription (simulated)</button></form>
<p><a href="${checkoutUrls(ctx).cancelUrl}">Cancel and go back to the app</a></p>`;
      return sendPage(reply, 200, 'Local checkout', html`${SIMULATION}${body}`);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/pay/local/checkout/:id/confirm',
    sessionRoute(app, {
      limit: 'writes',
      errorAnswer: ERROR_PAGE,
      schema: {
        tags,
        operationId: 'confirmLocalCheckout',
        summary: 'Confirm a local checkout (simulation): grants the plan, then redirects to the web app',
        params: IdParams,
        querystring: AnyQuery,
        response: { 303: redirect, ...errorPages(400, 403, 404, 409, 413, 415, 500) },
      },
    }),
    async (request, reply) => {
      await confirmLocalCheckout(ctx, principalOf(request).userId, request.params.id);
      return reply.redirect(checkoutUrls(ctx).successUrl, 303);
    },
  );

  app.get(
    '/pay/local/portal',
    sessionRoute(app, {
      limit: 'none',
      errorAnswer: ERROR_PAGE,
      schema: {
        tags,
        operationId: 'getLocalPortalPage',
        summary: 'Local customer portal (simulation): see the plan, switch to another, cancel at the end of the period',
        querystring: AnyQuery,
        response: { 200: htmlResponse('Portal page'), ...errorPages(400, 404, 500) },
      },
    }),
    async (request, reply) => {
      const view = await localPortalView(ctx, principalOf(request).userId);
      const body =
        view.subscriptionId === null
          ? html`<p>You have no active subscription${view.status ? html` (last status: ${view.status})` : ''}.</p>`
          : portalBody(view);
      return sendPage(reply, 200, 'Local customer portal', html`${SIMULATION}${body}<p><a href="${web}">Back to the app</a></p>`);
    },
  );

  const portalWrite = (operationId: string, summary: string, codes: number[], body?: typeof SwitchBody) =>
    sessionRoute(app, {
      limit: 'writes',
      errorAnswer: ERROR_PAGE,
      schema: {
        tags,
        operationId,
        summary,
        querystring: AnyQuery,
        ...(body ? { body } : {}),
        response: { 303: redirect, ...errorPages(400, 403, 404, ...codes, 413, 415, 500) },
      },
    });

  app.post<{ Body: { price_id: string } }>(
    '/pay/local/portal/switch',
    portalWrite(
      'switchLocalPlan',
      'Switch to another plan (simulation): the new capacities apply at once, then back to the portal',
      [409],
      SwitchBody,
    ),
    async (request, reply) => {
      await switchLocalPlan(ctx, principalOf(request).userId, request.body.price_id);
      return reply.redirect('/pay/local/portal', 303);
    },
  );

  app.post(
    '/pay/local/portal/cancel',
    portalWrite(
      'cancelLocalSubscription',
      'Cancel the plan at the end of the period (simulation): capacities stay until then, then return to base; back to the portal',
      [409],
    ),
    async (request, reply) => {
      await cancelLocalSubscription(ctx, principalOf(request).userId);
      return reply.redirect('/pay/local/portal', 303);
    },
  );

  app.post(
    '/pay/local/portal/resume',
    portalWrite('resumeLocalSubscription', 'Keep a plan cancelled at the end of the period (simulation): it renews as before', []),
    async (request, reply) => {
      await resumeLocalSubscription(ctx, principalOf(request).userId);
      return reply.redirect('/pay/local/portal', 303);
    },
  );
};

const SwitchBody = {
  type: 'object',
  properties: { price_id: { type: 'string', minLength: 1, maxLength: 200, pattern: NO_NUL_PATTERN } },
  required: ['price_id'],
  additionalProperties: false,
} as const;

/** A UTC date and time a person reads: "2026-12-25 15:00 UTC". */
function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function portalBody(view: LocalPortalView): SafeHtml {
  const current = view.plan ? planBlock(view.plan) : html`<p>Plan: no longer offered.</p>`;
  if (view.endsAt !== null) {
    return html`${current}
<p>Status: ${view.status}. <strong>Cancelled: the plan ends on ${when(view.endsAt)}</strong>; its capacities stay until then.</p>
<form method="post" action="/pay/local/portal/resume"><button type="submit">Keep my plan (simulated)</button></form>`;
  }
  const switches = view.otherPlans.map(
    (p) => html`<form method="post" action="/pay/local/portal/switch"><input type="hidden" name="price_id" value="${p.price_id}">
<button type="submit">Switch to ${p.name ?? p.price_id} (${formatAmount(p.amount, p.currency)} per ${p.interval}, ${p.extra_bets} more open bets, ${p.extra_slots} more followed traders)</button></form>`,
  );
  return html`${current}
<p>Status: ${view.status}. Renews on ${view.periodEnd === null ? '—' : when(view.periodEnd)}.</p>
${switches.length > 0 ? html`<h2>Change plan</h2><p>A switch applies at once; a real provider would prorate the charge.</p>${switches}` : ''}
<h2>Cancel</h2>
<form method="post" action="/pay/local/portal/cancel"><button type="submit">Cancel at the end of the period (simulated)</button></form>`;
}
