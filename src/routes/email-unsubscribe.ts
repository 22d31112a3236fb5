// Unsubscribe without a session (RFC 8058): GET shows a confirmation page
// with one button; POST to the same address turns email notices off at
// once. Only this plugin parses form bodies (List-Unsubscribe=One-Click); the
// JSON API keeps refusing them.
import type { FastifyError, FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../errors.js';
import { noteFailure } from '../http/logging.js';
import { publicRoute } from '../http/route-options.js';
import { html, page, type SafeHtml } from '../lib/html.js';
import { unsubscribe, unsubscribeTokenIsValid } from '../services/email.js';

const htmlResponse = (description: string) => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const TOO_MANY = htmlResponse('Too many requests from this address (Retry-After)');
const TokenQuery = {
  type: 'object',
  properties: { token: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[0-9]+\\.[A-Za-z0-9_-]+$' } },
  required: ['token'],
  additionalProperties: false,
} as const;
/** RFC 8058's one-click body. */
const OneClickBody = {
  type: 'object',
  properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } },
  required: ['List-Unsubscribe'],
  additionalProperties: false,
} as const;

export const unsubscribePages: FastifyPluginAsync = async (app) => {
  const { ctx } = app;
  const web = ctx.config.webUrl;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const send = (reply: FastifyReply, status: number, title: string, body: SafeHtml) =>
    reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page(title, html`<h1>${title}</h1>${body}`));
  const badLink = html`<p>This unsubscribe link is not valid. Open the link from the email again, or change your notice settings in the app.</p>
<p><a href="${web}settings">Notice settings</a></p>`;
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => {
    const status = err instanceof AppError ? err.statusCode : ((err as FastifyError).statusCode ?? 500);
    if (status === 400) return send(reply, 400, 'Link not valid', badLink);
    if (status === 429)
      return send(reply, 429, 'Too many requests', html`<p>Too many requests from this address. Try the link again in a minute.</p>`);
    if (status < 500)
      return send(reply, status, 'Something went wrong', html`<p>The request was not understood.</p><p><a href="${web}">Back to the app</a></p>`);
    noteFailure(request, err);
    return send(reply, 500, 'Something went wrong', html`<p>Internal server error.</p>`);
  });

  app.get<{ Querystring: { token: string } }>(
    '/email/unsubscribe',
    // Per client address like the other public reads: each request checks a signed token.
    publicRoute(app, {
      limit: 'reads',
      errorAnswer: TOO_MANY,
      schema: {
        tags: ['email'],
        operationId: 'getUnsubscribePage',
        summary: 'Confirmation page of an unsubscribe link (no session needed)',
        querystring: TokenQuery,
        response: {
          200: htmlResponse('Confirmation page'),
          400: htmlResponse('The link is not valid'),
          500: htmlResponse('Internal error page (never a stack trace)'),
        },
      },
    }),
    async (request, reply) => {
      if (!unsubscribeTokenIsValid(ctx, request.query.token)) return send(reply, 400, 'Link not valid', badLink);
      const action = `/email/unsubscribe?token=${encodeURIComponent(request.query.token)}`;
      return send(
        reply,
        200,
        'Stop notices by email?',
        html`<p>You will get no more emails about the bets of traders you follow (neither each notice nor the daily digest). Messages about your account itself still reach you.</p>
<form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>
<p><a href="${web}settings">Change notice settings instead</a></p>`,
      );
    },
  );

  app.post<{ Querystring: { token: string } }>(
    '/email/unsubscribe',
    publicRoute(app, {
      limit: 'reads',
      errorAnswer: TOO_MANY,
      schema: {
        tags: ['email'],
        operationId: 'unsubscribe',
        summary: 'Unsubscribe at once (RFC 8058 one-click: form body List-Unsubscribe=One-Click); no session needed',
        description: 'Turns email notices off. Repeating it changes nothing. Only this path accepts a form-encoded body.',
        querystring: TokenQuery,
        consumes: ['application/x-www-form-urlencoded'],
        body: OneClickBody,
        response: {
          200: htmlResponse('Done'),
          400: htmlResponse('The link is not valid'),
          415: htmlResponse('Not a form body'),
          500: htmlResponse('Internal error page (never a stack trace)'),
        },
      },
    }),
    async (request, reply) => {
      await unsubscribe(ctx, request.query.token);
      return send(
        reply,
        200,
        'Unsubscribed',
        html`<p>You will get no more notices by email. You can turn them on again in the app's settings.</p><p><a href="${web}settings">Notice settings</a></p>`,
      );
    },
  );
};
