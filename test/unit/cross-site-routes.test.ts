// Where the cross-site check runs: on every route with an unsafe method, ahead
// of the route's own hooks; never on safe methods or unknown paths.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installCrossSiteProtection } from '../../src/http/cross-site.js';

const OURS = 'https://paper-bets.example';
const EVIL = { origin: 'https://evil.example' };

async function appWithRoutes(): Promise<FastifyInstance> {
  const app = Fastify();
  app.decorate('ctx', { config: { trustedOrigins: [OURS] } } as never);
  installCrossSiteProtection(app);
  const ok = async () => ({ ok: true });
  app.get('/read', ok);
  app.post('/write', ok);
  // The route's own hook would answer 401: the refusal must come first.
  app.post('/guarded', { onRequest: async () => Promise.reject(Object.assign(new Error('no session'), { statusCode: 401 })) }, ok);
  app.route({ method: ['GET', 'DELETE'], url: '/both', handler: ok });
  await app.register(async (child) => {
    child.put('/child', ok);
  });
  await app.ready();
  return app;
}

describe('cross-site protection per route', () => {
  test('unsafe methods from another site are refused with 403, before the route’s own hooks, also in child plugins', async () => {
    const app = await appWithRoutes();
    try {
      for (const [method, url] of [
        ['POST', '/write'],
        ['POST', '/guarded'],
        ['DELETE', '/both'],
        ['PUT', '/child'],
      ] as const) {
        const res = await app.inject({ method, url, headers: EVIL });
        assert.equal(res.statusCode, 403, `${method} ${url}`);
        assert.match(res.json().message, /Cross-site request refused/);
        const same = await app.inject({ method, url, headers: { origin: OURS } });
        assert.equal(same.statusCode, url === '/guarded' ? 401 : 200, `${method} ${url} from our own site`);
      }
    } finally {
      await app.close();
    }
  });

  test('safe methods, also on a route sharing its path with an unsafe one, and unknown paths are not checked', async () => {
    const app = await appWithRoutes();
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/read', headers: EVIL })).statusCode, 200);
      assert.equal((await app.inject({ method: 'GET', url: '/both', headers: EVIL })).statusCode, 200);
      assert.equal((await app.inject({ method: 'POST', url: '/nowhere', headers: EVIL })).statusCode, 404);
    } finally {
      await app.close();
    }
  });
});
