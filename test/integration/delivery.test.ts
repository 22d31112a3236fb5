// Delivery (issue 24, item 11): JSON answers above 1 KB compressed
// (@fastify/compress), the web app's files sent precompressed from the build,
// source maps not served, and the link-preview tags the server writes into
// index.html for public profile and bet pages, escaped.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';
import { createTestApp, registerAndLogin, type TestApp } from '../helpers/app.js';
import { forEachDialect } from '../helpers/db.js';

const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <link rel="icon" href="./favicon.svg" type="image/svg+xml" />
    <title>Paper Bets</title>
    <meta name="description" content="The default description." />
    <meta property="og:title" content="Paper Bets" />
    <meta property="og:description" content="The default description." />
    <meta name="twitter:card" content="summary" />
    <script type="module" crossorigin src="./assets/index-abc123.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>`;

const SCRIPT = `console.log(${JSON.stringify('the app '.repeat(400))});\n`;

/** A build as web/vite.config.ts writes it: files, their .br and .gz siblings, and source maps. */
function fakeBuild(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), INDEX);
  const js = path.join(dir, 'assets', 'index-abc123.js');
  fs.writeFileSync(js, SCRIPT);
  fs.writeFileSync(`${js}.br`, zlib.brotliCompressSync(SCRIPT));
  fs.writeFileSync(`${js}.gz`, zlib.gzipSync(SCRIPT));
  fs.writeFileSync(`${js}.map`, '{"version":3,"sources":["../src/main.tsx"],"mappings":""}');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

/** The answer to one request written as is (inject rewrites an absolute-form target to its path). */
function rawGet(port: number, target: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
    socket.on('error', reject);
  });
}

/** 29 characters: a username column holds 30 (PostgreSQL checks). */
const HOSTILE = `"'><script>alert(1)</script>&`;

forEachDialect('delivery', (dialect) => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = fakeBuild();
    t = await createTestApp(dialect, { deps: { webDistDir: dist } });
  });
  after(async () => {
    await t.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  test('a JSON answer above 1 KB is compressed as the client accepts (br first, else gzip); a small one is not', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(plain.statusCode, 200);
    assert.ok(plain.rawPayload.length > 1024);
    assert.equal(plain.headers['content-encoding'], undefined);

    const br = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 3, `${br.rawPayload.length} of ${plain.rawPayload.length} bytes`);
    assert.deepEqual(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString()), plain.json());

    const gz = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(zlib.gunzipSync(gz.rawPayload).toString()), plain.json());

    const small = await t.app.inject({ method: 'GET', url: '/plans', headers: { 'accept-encoding': 'br, gzip' } });
    assert.ok(small.rawPayload.length < 1024, `${small.rawPayload.length} bytes`);
    assert.equal(small.headers['content-encoding'], undefined);
  });

  test('the CSV export streams through compression intact', async () => {
    const user = await registerAndLogin(t.app, 'csv');
    for (let i = 0; i < 12; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/bet/open',
        headers: { cookie: user.cookie },
        payload: { ticker: 'AAPL', direction: 'LONG' },
      });
      assert.equal(r.statusCode, 200, r.body);
      const bet = r.json() as { bet_id: number };
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: user.cookie }, payload: { bet_id: bet.bet_id } })).statusCode,
        200,
      );
    }
    const plain = await t.app.inject({ method: 'GET', url: '/me/export?format=csv', headers: { cookie: user.cookie } });
    assert.equal(plain.statusCode, 200);
    const zipped = await t.app.inject({ method: 'GET', url: '/me/export?format=csv', headers: { cookie: user.cookie, 'accept-encoding': 'gzip' } });
    assert.equal(zipped.statusCode, 200);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers['content-type']), /text\/csv/);
    assert.match(String(zipped.headers['content-disposition']), /attachment; filename="bets-.*\.csv"/);
    const csv = zlib.gunzipSync(zipped.rawPayload).toString();
    assert.equal(csv, plain.body);
    assert.equal(csv.trim().split(/\r?\n/).length, 13);
  });

  test('an Idempotency-Key replay answers the stored answer under compression, without doing the work again', async () => {
    const user = await registerAndLogin(t.app, 'replay');
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/bet/open',
        headers: { cookie: user.cookie, 'idempotency-key': `k-${user.id}`, 'accept-encoding': 'br, gzip' },
        payload: { ticker: 'MSFT', direction: 'SHORT' },
      });
    const first = await send();
    const again = await send();
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(again.statusCode, 200, again.body);
    const decode = (r: typeof first) =>
      r.headers['content-encoding'] === 'br'
        ? zlib.brotliDecompressSync(r.rawPayload).toString()
        : r.headers['content-encoding'] === 'gzip'
          ? zlib.gunzipSync(r.rawPayload).toString()
          : r.body;
    assert.deepEqual(JSON.parse(decode(again)), JSON.parse(decode(first)));
    const portfolio = await t.app.inject({ method: 'GET', url: '/portfolio', headers: { cookie: user.cookie } });
    assert.equal((portfolio.json() as unknown[]).length, 1);
  });

  test('on every route taking an Idempotency-Key, the answer is stored before it is compressed (the hooks in that order)', () => {
    const lines = t.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
    let routes = 0;
    for (const [i, line] of lines.entries()) {
      if (!line.includes('(preHandler)') || !line.includes('"claim()"')) continue;
      const onSend = lines.slice(i + 1, i + 3).find((l) => l.includes('(onSend)')) ?? '';
      const store = onSend.indexOf('"store()"');
      const compress = onSend.indexOf('"onSend()"');
      assert.ok(store >= 0 && compress > store, `${lines[i - 1]?.trim()}: ${onSend.trim()}`);
      routes++;
    }
    assert.ok(routes >= 5, `${routes} idempotent routes seen`);
  });

  test("the web app's files are sent precompressed as the client accepts, identical once decoded", async () => {
    const url = '/app/assets/index-abc123.js';
    const br = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(br.rawPayload, fs.readFileSync(path.join(dist, 'assets', 'index-abc123.js.br')));
    assert.match(String(br.headers['cache-control']), /immutable/);
    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.rawPayload).toString(), SCRIPT);
    const plain = await t.app.inject({ method: 'GET', url });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, SCRIPT);
    assert.match(String(plain.headers['content-type']), /javascript/);
  });

  test('source maps are not served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/app/assets/index-abc123.js.map' });
    assert.equal(res.statusCode, 404);
    assert.doesNotMatch(res.body, /mappings/);
  });

  test("a profile page's HTML carries its own title and preview tags, with a hostile username escaped", async () => {
    const now = Date.now();
    const row = await t.ctx.db
      .insertInto('users')
      .values({ username: HOSTILE, username_lower: HOSTILE.toLowerCase(), email: `hostile${now}@example.test`, password_hash: 'x', created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    const res = await t.app.inject({ method: 'GET', url: `/app/user/${id}?offset=20` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /text\/html/);
    const html = res.body;
    assert.doesNotMatch(html, /<script>alert/);
    assert.equal(html.match(/<title>/g)?.length, 1, 'one title');
    assert.equal(html.match(/property="og:title"/g)?.length, 1, 'one og:title: the default is replaced');
    const escaped = HOSTILE.replaceAll('&', '&amp;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&#39;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;');
    assert.ok(html.includes(`<title>${escaped} on Paper Bets</title>`), html);
    assert.ok(html.includes(`<meta property="og:title" content="${escaped} on Paper Bets">`));
    assert.match(html, /<meta property="og:description" content="[^"<>]+">/);
    assert.match(html, /<meta name="twitter:card" content="summary">/);
    assert.match(html, new RegExp(`<meta property="og:url" content="http://[^"]+/app/user/${id}">`));
    assert.doesNotMatch(html, /The default description/);
    // The <base> stays first in the head, the app's script stays.
    assert.match(html, /<head>\s*<base href="\/app\/">/);
    assert.match(html, /src="\.\/assets\/index-abc123\.js"/);
  });

  test('preview links come from PUBLIC_URL whatever the request line or the Host header says', async () => {
    const u = await registerAndLogin(t.app);
    const expected = `<meta property="og:url" content="${t.ctx.config.publicUrl}/app/user/${u.id}">`;
    const hostile = await t.app.inject({ method: 'GET', url: `/app/user/${u.id}`, headers: { host: 'evil.example' } });
    assert.equal(hostile.statusCode, 200);
    assert.ok(hostile.body.includes(expected), hostile.body);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as net.AddressInfo;
    for (const target of [`http://evil.example/app/user/${u.id}`, `http://evil.example/app/user/${u.id}?offset=20`]) {
      const answer = await rawGet(port, target, 'evil.example');
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.ok(answer.includes(expected), answer);
      assert.doesNotMatch(answer, /evil\.example/);
    }
  });

  test("a bet page's HTML names the bet, its trader and its state", async () => {
    const user = await registerAndLogin(t.app, 'previewed');
    const opened = await t.app.inject({
      method: 'POST',
      url: '/bet/open',
      headers: { cookie: user.cookie },
      payload: { ticker: 'NVDA', direction: 'LONG' },
    });
    const bet = opened.json() as { bet_id: number; entry_price: number };
    const open = await t.app.inject({ method: 'GET', url: `/app/bet/${bet.bet_id}` });
    assert.ok(open.body.includes(`<title>${user.username}: NVDA long on Paper Bets</title>`), open.body);
    assert.match(open.body, /<meta property="og:description" content="[^"]*NVDA goes up: open, entered at [^"]+">/);

    await t.app.inject({ method: 'POST', url: '/bet/close', headers: { cookie: user.cookie }, payload: { bet_id: bet.bet_id } });
    const closed = await t.app.inject({ method: 'GET', url: `/app/bet/${bet.bet_id}` });
    assert.match(closed.body, /<meta property="og:description" content="[^"]*: closed at [\d,.]+ \([+−]?\d+\.\d\d%\)/);
  });

  test('an id that names nothing, or is no id, gets the plain page (the app shows its own not-found)', async () => {
    for (const url of ['/app/user/999999999', '/app/bet/999999999', '/app/user/abc', '/app/bet/0']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /<title>Paper Bets<\/title>/, url);
      assert.match(res.body, /The default description/, url);
    }
  });
});
