// Graceful close: server.close() stops accepting and reaps the connections
// idle at that moment, but a keep-alive connection whose request is still
// running would stay open until its keep-alive time-out once answered, and
// hold the shutdown hostage. So while closing, answers say Connection: close
// (see response-headers.ts) and connections that fall idle are reaped.
import type { FastifyInstance } from 'fastify';

const REAP_EVERY_MS = 100;

export interface ClosingState {
  /** True from the start of app.close(): answers should end their connection. */
  readonly closing: boolean;
}

export function installGracefulClose(app: FastifyInstance): ClosingState {
  const state = { closing: false };
  let reaper: NodeJS.Timeout | null = null;
  app.addHook('preClose', async () => {
    state.closing = true;
    reaper = setInterval(() => app.server.closeIdleConnections(), REAP_EVERY_MS);
    reaper.unref();
  });
  app.addHook('onClose', async () => {
    if (reaper) clearInterval(reaper);
  });
  return state;
}
