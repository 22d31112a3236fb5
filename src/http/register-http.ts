// Step two of the assembly (src/app.ts): the HTTP side on a context. Hooks
// first, in one order that matters, then every route plugin from one table.
//
// The order, and why:
//  1. shared schemas, validators and the error handler: every later plugin's
//     routes compile against them, and every error takes the one shape;
//  2. cookies, parsed only by the routes that read the session;
//  3. graceful close, then the response headers: the headers hook reads the
//     closing flag to answer `Connection: close` while the server shuts down;
//  4. security headers (onSend, chosen by content type), observability
//     (onResponse) and the loopback redirect (onRequest): global hooks, each
//     on its own;
//  5. the rate limiter, before the routes that declare their limits;
//  6. auth, idempotency, cross-site protection: each onRoute hook wraps the
//     routes registered after it. Auth and the cross-site check each put
//     their onRequest check first, so the cross-site refusal (403) comes
//     before authentication (401), and 401 before validation (400);
//     idempotency claims its key after both, in preHandler;
//  7. compression after idempotency: a route's onSend hooks run in the order
//     of the onRoute hooks that added them, so the stored answer is the plain
//     one and a replay is compressed afresh;
//  8. the OpenAPI document, which collects the routes registered after it;
//  9. the route table, then the web app, whose fallback answers the rest.
import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { clientAddressOf } from './client-address.js';
import { alertRoutes } from '../routes/alerts.js';
import { accountRoutes } from '../routes/accounts.js';
import { chatRoutes } from '../routes/chat.js';
import { discoveryRoutes } from '../routes/discovery.js';
import { emailRoutes } from '../routes/email.js';
import { instrumentRoutes } from '../routes/instruments.js';
import { consensusRoutes } from '../routes/consensus.js';
import { pushRoutes } from '../routes/push.js';
import { leagueRoutes } from '../routes/leagues.js';
import { meRoutes } from '../routes/me.js';
import { notificationRoutes } from '../routes/notifications.js';
import { paymentRoutes } from '../routes/payments.js';
import { rankingsRoutes } from '../routes/rankings.js';
import { recordRoutes } from '../routes/record.js';
import { socialRoutes } from '../routes/social.js';
import { statsRoutes } from '../routes/stats.js';
import { tailFadeRoutes } from '../routes/tail-fade.js';
import { tradingRoutes } from '../routes/trading.js';
import { sharedSchemas } from '../schemas/index.js';
import { installAuth } from './auth.js';
import { PER_REQUEST_PLUGIN_OPTIONS } from './compression.js';
import { installCrossSiteProtection } from './cross-site.js';
import { installErrorHandling } from './errors.js';
import { installGracefulClose } from './graceful-close.js';
import { installIdempotency } from './idempotency.js';
import { installLoopbackRedirect } from './loopback.js';
import { installObservability } from './observability.js';
import { installOpenApi } from './openapi.js';
import { installResponseHeaders } from './response-headers.js';
import { installSecurityHeaders } from './security-headers.js';
import './types.js';
import { installValidators } from './validation.js';
import { installWebApp, webMountPath } from './web-app.js';

/** Every route plugin, registered in this order. A new plugin is a new row. */
const ROUTES: FastifyPluginAsync[] = [
  discoveryRoutes,
  accountRoutes,
  meRoutes,
  tradingRoutes,
  socialRoutes,
  paymentRoutes,
  chatRoutes,
  notificationRoutes,
  emailRoutes,
  tailFadeRoutes,
  recordRoutes,
  statsRoutes,
  rankingsRoutes,
  leagueRoutes,
  instrumentRoutes,
  consensusRoutes,
  alertRoutes,
  pushRoutes,
];

export async function registerHttp(app: FastifyInstance, ctx: AppContext, opts: { webDistDir?: string } = {}): Promise<void> {
  const { config } = ctx;
  app.decorate('ctx', ctx);
  for (const schema of sharedSchemas) app.addSchema(schema);
  installValidators(app, sharedSchemas);
  installErrorHandling(app);
  // HTML forms cannot send application/json: JSON routes accept nothing else.
  app.removeContentTypeParser(['text/plain']);

  await app.register(cookie, { hook: false });
  const closing = installGracefulClose(app);
  installResponseHeaders(app, closing);
  await installSecurityHeaders(app, config.publicUrl);
  installObservability(app, ctx.metrics);
  installLoopbackRedirect(app, webMountPath(config.webUrl, config.publicUrl));
  await app.register(rateLimit, {
    global: false,
    // Per address: an IPv6 client by its network (src/lib/client-address.ts).
    keyGenerator: clientAddressOf,
    ...(ctx.redis ? { redis: ctx.redis, nameSpace: 'rate-limit:' } : {}),
  });
  installAuth(app);
  installIdempotency(app);
  installCrossSiteProtection(app);
  // Answers above 1 KB leave compressed (brotli or gzip, as the client accepts), those made per
  // request at a cheap level (compression.ts). Shared answers and fixed documents come compressed
  // once, and the web app's files precompressed from the build (src/http/web-app.ts): all left as they are.
  await app.register(compress, { ...PER_REQUEST_PLUGIN_OPTIONS, globalDecompression: false });
  await installOpenApi(app);

  for (const routes of ROUTES) await app.register(routes);
  await installWebApp(app, opts.webDistDir);
}
