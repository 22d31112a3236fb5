// Messaging-account linking: the API, the bot's webhook, and the local page
// that stands in for the messaging app when no bot is configured.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Update } from 'grammy/types';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { principalOf } from '../http/types.js';
import { publicRoute, sessionRoute } from '../http/route-options.js';
import { html, page, type SafeHtml } from '../lib/html.js';
import { ChatLinkCodeResponseSchema, ChatStatusResponseSchema, ChatUnlinkResponseSchema } from '../schemas/chat.js';
import { errorResponses, ref, Text } from '../schemas/common.js';
import { chatStatus, codeOwner, codeOwnerName, createLinkCode, handleTelegramUpdate, linkWithCode, localChat, unlinkChat } from '../services/chat.js';

function sameSecret(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export const chatRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  app.get(
    '/chat/status',
    sessionRoute(app, {
      limit: 'none',
      schema: {
        tags: ['chat'],
        operationId: 'getChatStatus',
        summary: 'Whether a messaging account is linked',
        response: { 200: ref(ChatStatusResponseSchema) },
      },
    }),
    async (request) => chatStatus(ctx, principalOf(request).userId),
  );

  app.post(
    '/chat/link-code',
    sessionRoute(app, {
      limit: 'writes',
      idempotent: true,
      schema: {
        tags: ['chat'],
        operationId: 'createChatLinkCode',
        summary: 'Create a one-time code (and deep link) to link a messaging account; valid 10 minutes, replaces the previous one',
        response: { 200: ref(ChatLinkCodeResponseSchema), ...errorResponses(403) },
      },
    }),
    async (request) => createLinkCode(ctx, principalOf(request).userId),
  );

  app.post(
    '/chat/unlink',
    sessionRoute(app, {
      limit: 'writes',
      schema: {
        tags: ['chat'],
        operationId: 'unlinkChat',
        summary: 'Unlink the messaging account (disables notifications); idempotent',
        response: { 200: ref(ChatUnlinkResponseSchema), ...errorResponses(403) },
      },
    }),
    async (request) => unlinkChat(ctx, principalOf(request).userId),
  );

  const webhookSecret = ctx.config.telegram.webhookSecret;
  app.post(
    '/chat/webhook',
    {
      // The secret is checked before anything else, so a forged update gets 401 and changes nothing.
      onRequest: async (request: FastifyRequest) => {
        if (ctx.chatTransport.name !== 'telegram' || webhookSecret === null) throw notFound();
        if (!sameSecret(request.headers['x-telegram-bot-api-secret-token'], webhookSecret)) throw unauthorized('Invalid webhook secret');
      },
      schema: {
        hide: true,
        body: Type.Object({ update_id: Type.Integer() }, { additionalProperties: true }),
      },
    },
    async (request) => {
      const answer = await handleTelegramUpdate(ctx, request.body as Update);
      // Telegram runs a method returned in the webhook's response: the button press is answered with no extra call.
      return answer ? { method: 'answerCallbackQuery', callback_query_id: answer.callbackQueryId, text: answer.text } : {};
    },
  );

  if (ctx.chatTransport.name === 'log') await app.register(localLinkPage);
};

const STAND_IN = html`<p class="notice">No messaging service is configured, so this page stands in for the messaging app:
confirming here does what sending the code to the bot would do. Your notices are then listed in the app.</p>`;

function linkPage(title: string, content: SafeHtml): string {
  return page(title, html`<h1>${title}</h1>${STAND_IN}${content}`);
}

const CodeParams = Type.Object({ code: Text({ maxLength: 64 }) });
const HTML = { content: { 'text/html': { schema: Type.String() } } };
/** A page for a browser: the API's strict query rule does not apply to it. */
const AnyQuery = Type.Object({}, { additionalProperties: true });

/** Encapsulated: only here is a form body (application/x-www-form-urlencoded) accepted. */
const localLinkPage: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const trusted = new Set(ctx.config.trustedOrigins);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const badCode = linkPage('Link not possible', html`<p>This code is unknown, already used or expired. Create a new one in the app.</p>`);

  app.get(
    '/chat/local/link/:code',
    publicRoute(app, {
      limit: 'none',
      secretParams: ['code'],
      schema: {
        tags: ['chat'],
        operationId: 'getLocalChatLinkPage',
        summary: 'Local stand-in for the messaging app: confirm linking with a code (HTML page)',
        description: 'The code in the address is the credential: no session is read.',
        params: CodeParams,
        querystring: AnyQuery,
        response: { 200: HTML, 404: HTML, ...errorResponses(400, 500) },
      },
    }),
    async (request, reply) => {
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      const username = await codeOwnerName(ctx, request.params.code);
      if (username === null) return reply.code(404).send(badCode);
      const action = `/chat/local/link/${encodeURIComponent(request.params.code)}`;
      return linkPage(
        'Link notifications',
        html`<p>Send the notices of <strong>${username}</strong> here?</p>
<form method="post" action="${action}"><input type="hidden" name="confirm" value="yes"><button type="submit">Confirm</button></form>`,
      );
    },
  );

  app.post(
    '/chat/local/link/:code',
    {
      config: { secretParams: ['code'] },
      // The confirmation only counts when posted by the page itself (same origin).
      // The browser's Sec-Fetch-Site decides when sent (a form post under helmet's
      // Referrer-Policy: no-referrer carries `Origin: null`); otherwise the Origin must be ours.
      onRequest: async (request: FastifyRequest) => {
        const site = request.headers['sec-fetch-site'];
        const sameOrigin = site !== undefined ? site === 'same-origin' : trusted.has(String(request.headers.origin ?? ''));
        if (!sameOrigin) throw forbidden('Confirm from the link page itself');
      },
      schema: {
        hide: true,
        params: CodeParams,
        body: Type.Object({ confirm: Type.Literal('yes') }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
      const owner = await codeOwner(ctx, request.params.code);
      const userId = owner === null ? null : await linkWithCode(ctx, localChat(owner), request.params.code);
      if (userId === null) return reply.code(404).send(badCode);
      return linkPage('Linked', html`<p>Done: notices will be listed in the app. You can close this page.</p>`);
    },
  );
};
