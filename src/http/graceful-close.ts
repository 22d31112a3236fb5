// Graceful close: server.close() stops accepting and reaps the connections
// idle at that moment, but a keep-alive connection whose request is still
// running would stay open until its keep-alive time-out once answered, and
// hold the shutdown hostage. So while closing, answers say Connection: close
// and connections that fall idle are reaped.
import type { FastifyInstance } from 'fastify';

const REAP_EVERY_MS = 100;

export function installGracefulClose(app: FastifyInstance): void {
  let closing = false;
  let reaper: NodeJS.Timeout | null = null;
  app.addHook('preClose', async () => {
    closing = true;
    reaper = setInterval(() => app.server.closeIdleConnections(), REAP_EVERY_MS);
    reaper.unref();
  });
  app.addHook('onClose', async () => {
    if (reaper) clearInterval(reaper);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
}
