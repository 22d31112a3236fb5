// The container image and the compose file cannot be built or run on these
// machines (no container engine), so what they must say is checked as text,
// and the parts that run without one run here: the health check's command
// against a local server, and the compose site for nginx (derived from the
// deployment example) under nginx -t with 127.0.0.1 upstreams.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { findNginx, NGINX_SITE } from '../../bench/lib/nginx.js';
import { loadConfig } from '../../src/config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE_SCRIPT = path.join(root, 'deploy', 'compose', 'nginx-site.sh');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  image: string;
  name: string | null;
  body: Instruction[];
}

/** The Dockerfile's stages: comments dropped, continuation lines joined. */
function dockerfileStages(): Stage[] {
  const text = fs
    .readFileSync(path.join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n\s*/g, ' ');
  const stages: Stage[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\w+)\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!;
    if (op === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      assert.ok(from, `FROM ${args}`);
      stages.push({ image: from[1]!, name: from[2] ?? null, body: [] });
    } else {
      assert.ok(stages.length > 0, `${op} before the first FROM`);
      stages.at(-1)!.body.push({ op, args });
    }
  }
  return stages;
}

const args = (stage: Stage, op: string) => stage.body.filter((i) => i.op === op).map((i) => i.args);
/** The exec form's argument list (["node", "-e", "…"]). */
const execForm = (s: string): string[] => JSON.parse(s) as string[];
/** The Debian release under an official node image's tag: node:26-trixie-slim → node:26-trixie. */
const base = (image: string) => image.replace(/-slim$/, '');

test('the image: built on a full Node 26 image, run on the slim one of the same Debian release, the production install copied across', () => {
  const stages = dockerfileStages();
  assert.ok(stages.length >= 2, 'multi-stage');
  for (const s of stages) assert.match(s.image, /^node:26(?:[.-]|$)/, `${s.image}: Node 26`);
  const runtime = stages.at(-1)!;
  const builders = stages.slice(0, -1);
  assert.match(runtime.image, /-slim$/, 'the runtime stage is a slim image');
  for (const s of builders) {
    assert.doesNotMatch(s.image, /slim|alpine/, `${s.image}: a build stage has the compilers`);
    assert.equal(base(s.image), base(runtime.image), `${s.image} and ${runtime.image}: one C library for the native addons`);
    assert.ok(s.name, 'build stages are named');
  }

  const runs = (s: Stage) => args(s, 'RUN').join('\n');
  const build = builders.find((s) => /npm ci(?![^\n]*--omit=dev)/.test(runs(s)));
  assert.ok(build, 'a stage installs every dependency');
  assert.match(runs(build), /npm run build(\s|$)|npm run build:server[^\n]*npm run build:web/, 'the server and the web app are built');

  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  for (const [, script] of stages.flatMap((s) => [...runs(s).matchAll(/npm run (\S+)/g)])) assert.ok(pkg.scripts[script!], `npm run ${script}`);

  const production = stages.find((s) => /npm ci [^\n]*--omit=dev/.test(runs(s)));
  assert.ok(production, 'npm ci --omit=dev');
  const copies = args(runtime, 'COPY');
  const from = (what: RegExp) => copies.find((c) => what.test(c))?.match(/--from=(\S+)/)?.[1];
  if (production !== runtime) assert.equal(from(/node_modules/), production.name, 'node_modules come from the --omit=dev install');
  for (const c of copies) {
    const stage = /--from=(\S+)/.exec(c)?.[1];
    if (stage)
      assert.ok(
        stages.some((s) => s.name === stage),
        `${c}: a stage of this file`,
      );
  }
  assert.equal(from(/\/app\/dist\b/), build.name, 'dist/ from the build');
  assert.equal(from(/web\/dist/), build.name, 'web/dist/ from the build');
  assert.ok(
    copies.some((c) => /package\.json/.test(c)),
    'package.json: dist/*.js are ES modules because it says so',
  );
});

test('the image runs as a non-root user, in production, on every address, port 3000, data in a volume, node as the first process', () => {
  const runtime = dockerfileStages().at(-1)!;
  const users = args(runtime, 'USER');
  assert.equal(users.length, 1);
  assert.doesNotMatch(users[0]!, /^(root|0)(:|$)/);
  const ops = runtime.body.map((i) => i.op);
  assert.ok(
    ops.slice(ops.lastIndexOf('USER')).every((op) => op !== 'RUN'),
    'nothing runs as root after USER',
  );

  const env = args(runtime, 'ENV').join(' ');
  assert.match(env, /\bNODE_ENV=production\b/);
  assert.match(env, /\bHOST=0\.0\.0\.0\b/);
  assert.doesNotMatch(env, /JWT_SECRET/, 'no secret in the image');
  assert.deepEqual(args(runtime, 'EXPOSE'), ['3000']);

  const volumes = args(runtime, 'VOLUME').flatMap((v) => (v.startsWith('[') ? execForm(v) : v.split(/\s+/)));
  const dbPath = /DATABASE_URL=sqlite:(\S+)/.exec(env)?.[1];
  assert.ok(dbPath, 'the SQLite database has an absolute path');
  assert.ok(
    volumes.some((v) => path.posix.dirname(dbPath) === v),
    `${dbPath} in a volume (${volumes.join(', ')})`,
  );

  const cmd = args(runtime, 'CMD');
  assert.equal(cmd.length, 1);
  const [node, main] = execForm(cmd[0]!);
  assert.equal(node, 'node');
  // npm start checks the build (scripts/start.mjs), then imports dist/main.js in its own process; the image, built, runs it directly.
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(main, 'dist/main.js');
  const start = /^node (\S+)$/.exec(pkg.scripts.start ?? '')?.[1];
  assert.ok(start, `npm start runs one file with node (${pkg.scripts.start})`);
  assert.match(fs.readFileSync(path.join(root, start), 'utf8'), /await import\('\.\.\/dist\/main\.js'\)/, `${start} runs ${main}`);
});

/** Runs the image's HEALTHCHECK command as the container would, against `port`. */
function healthCheck(command: string[], port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, command.slice(1), { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
    child.on('exit', (code) => resolve(code));
  });
}

test("the image's HEALTHCHECK asks GET / with node (no curl on slim): 0 on 200, 1 on an error status or no answer", async () => {
  const runtime = dockerfileStages().at(-1)!;
  const checks = args(runtime, 'HEALTHCHECK');
  assert.equal(checks.length, 1);
  const m = /^(.*?)\bCMD\s+(\[.*\])$/.exec(checks[0]!);
  assert.ok(m, 'HEALTHCHECK … CMD ["node", …]');
  assert.match(m[1]!, /--timeout=\d+s/);
  const command = execForm(m[2]!);
  assert.equal(command[0], 'node');

  let status = 200;
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    res.writeHead(status).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    assert.equal(await healthCheck(command, port), 0);
    status = 503;
    assert.equal(await healthCheck(command, port), 1);
    assert.deepEqual(paths, ['GET /', 'GET /']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(await healthCheck(command, port), 1, 'nothing listening');
});

test('.dockerignore keeps local installs, builds and databases out, and the sources in', () => {
  const ignored = fs
    .readFileSync(path.join(root, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const p of ['**/node_modules', 'dist', 'web/dist', 'data', '.git']) assert.ok(ignored.includes(p), p);
  const needed = ['src/main.ts', 'web/src', 'web/index.html', 'web/vite.config.ts', 'scripts', 'package.json', 'package-lock.json'];
  for (const p of ignored) for (const n of needed) assert.ok(n !== p && !n.startsWith(`${p}/`), `${p} keeps ${n} out`);
});

interface ComposeService {
  image?: string;
  build?: string | { context?: string };
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}

function composeServices(): Record<string, ComposeService> {
  const doc = parse(fs.readFileSync(path.join(root, 'compose.yaml'), 'utf8')) as { services: Record<string, ComposeService> };
  return doc.services;
}

const builtHere = (s: ComposeService) => s.build === '.' || (typeof s.build === 'object' && (s.build.context ?? '.') === '.');

/** The outside services production makes an instance choose by name (src/config.ts). */
const CHOICES = ['MAIL_TRANSPORT', 'PAYMENTS', 'CHAT_TRANSPORT', 'PRICE_PROVIDER'];

/** The runtime stage's ENV, as the container's environment starts. */
function runtimeEnv(): Record<string, string> {
  const env = args(dockerfileStages().at(-1)!, 'ENV').join(' ');
  return Object.fromEntries(
    env
      .split(/\s+/)
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

test('the image chooses no outside service: a container told only its secret refuses to start rather than run on simulators', () => {
  const env = runtimeEnv();
  for (const name of CHOICES) assert.equal(env[name], undefined, name);
  assert.throws(() => loadConfig({ ...env, JWT_SECRET: 'x'.repeat(32) }), /MAIL_TRANSPORT.*PAYMENTS.*CHAT_TRANSPORT.*PRICE_PROVIDER/);
});

test("compose states each outside service's choice, and production starts with that environment", () => {
  // What compose passes: ${X:-default} as its default, ${X:?message} as if the operator set it.
  const resolve = (value: string) =>
    value.replace(/\$\{(\w+):([-?])([^}]*)\}/g, (_m, name: string, op: string, rest: string) =>
      op === '-' ? rest : `${name.toLowerCase()}-${'x'.repeat(32)}`,
    );
  for (const [name, app] of Object.entries(composeServices()).filter(([, s]) => builtHere(s))) {
    const env = app.environment ?? {};
    for (const choice of CHOICES) assert.ok(env[choice], `${name}: ${choice} stated`);
    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, resolve(String(v))]));
    assert.equal(loadConfig({ ...runtimeEnv(), ...resolved }).env, 'production', name);
  }
});

test('compose: PostgreSQL, Redis, two instances of this image sharing database, Redis and JWT_SECRET behind nginx', () => {
  const services = composeServices();
  const byImage = (prefix: string) => Object.entries(services).filter(([, s]) => s.image?.split(':')[0] === prefix);
  assert.equal(byImage('postgres').length, 1);
  assert.equal(byImage('redis').length, 1);
  assert.equal(byImage('nginx').length, 1);
  const [postgres] = byImage('postgres')[0]!;
  const [redis] = byImage('redis')[0]!;

  const apps = Object.entries(services).filter(([, s]) => builtHere(s));
  assert.equal(apps.length, 2, 'two instances');
  for (const [name, app] of apps) {
    const env = app.environment ?? {};
    assert.match(env.DATABASE_URL ?? '', new RegExp(`^postgres://[^/]*@${postgres}:5432/`), `${name}: DATABASE_URL`);
    assert.match(env.REDIS_URL ?? '', new RegExp(`^redis://${redis}:6379`), `${name}: REDIS_URL`);
    assert.match(env.JWT_SECRET ?? '', /^\$\{JWT_SECRET:\?.+\}$/, `${name}: JWT_SECRET is required, with no default`);
    assert.ok(env.TRUST_PROXY, `${name}: TRUST_PROXY`);
    assert.equal(app.ports, undefined, `${name}: reached through nginx only (TRUST_PROXY trusts one hop)`);
    assert.ok(app.depends_on?.[postgres] && app.depends_on[redis], `${name}: starts after PostgreSQL and Redis`);
  }
  const env = (s: ComposeService) => JSON.stringify(s.environment);
  assert.equal(env(apps[0]![1]), env(apps[1]![1]), 'the instances are configured alike');

  const [, nginx] = byImage('nginx')[0]!;
  assert.ok(
    nginx.volumes?.some((v) => v.startsWith(`./${NGINX_SITE}:`)),
    'nginx runs the deployment example',
  );
  assert.ok(nginx.volumes?.some((v) => /^\.\/deploy\/compose\/nginx-site\.sh:\/docker-entrypoint\.d\/[^:]+\.sh(:ro)?$/.test(v)));
  assert.deepEqual(
    nginx.environment?.PAPER_BETS_UPSTREAMS?.split(/\s+/),
    apps.map(([name]) => `${name}:3000`),
    "nginx's upstreams are the instances, on the image's port",
  );
  for (const [name] of apps) assert.ok(nginx.depends_on?.[name], `nginx starts after ${name}`);
});

/** The compose site: deploy/compose/nginx-site.sh run on the deployment example. */
function composeSite(upstreams: string, dir: string, example = path.join(root, NGINX_SITE)): { status: number | null; stderr: string; site: string } {
  const out = path.join(dir, 'site.conf');
  const run = spawnSync(SITE_SCRIPT, {
    env: { ...process.env, PAPER_BETS_SITE_EXAMPLE: example, PAPER_BETS_SITE_OUT: out, PAPER_BETS_UPSTREAMS: upstreams },
    encoding: 'utf8',
  });
  return { status: run.status, stderr: run.stderr, site: fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '' };
}

test("the compose site is the deployment example with only its upstream servers and listen address changed (the script is executable: nginx's entrypoint skips others)", () => {
  assert.ok(fs.statSync(SITE_SCRIPT).mode & 0o100, `${SITE_SCRIPT} is executable`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-site-'));
  try {
    const { status, stderr, site } = composeSite('app1:3000 app2:3000', dir);
    assert.equal(status, 0, stderr);
    const example = fs.readFileSync(path.join(root, NGINX_SITE), 'utf8').split('\n');
    const lines = site.split('\n');
    assert.equal(lines.length, example.length);
    const changed = example.flatMap((line, i) => (line === lines[i] ? [] : [[line.trim(), lines[i]!.trim()]]));
    assert.deepEqual(changed, [
      ['server 127.0.0.1:3001;', 'server app1:3000;'],
      ['server 127.0.0.1:3002;', 'server app2:3000;'],
      ['listen 127.0.0.1:8080;', 'listen 8080;'],
    ]);

    const broken = path.join(dir, 'broken.conf');
    fs.writeFileSync(broken, 'server { listen 127.0.0.1:8080; }\n');
    const refused = composeSite('app1:3000', dir, broken);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /no upstream/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('nginx accepts the compose site (nginx -t), its upstreams at 127.0.0.1 since compose names do not resolve here', {
  skip: findNginx() ? false : 'nginx is not installed (Debian: apt-get install nginx)',
}, () => {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-nginx-t-'));
  try {
    const { status, stderr, site } = composeSite('127.0.0.1:3001 127.0.0.1:3002', prefix);
    assert.equal(status, 0, stderr);
    fs.writeFileSync(path.join(prefix, 'site.conf'), site.replace(/proxy_cache_path \S+ /, `proxy_cache_path ${path.join(prefix, 'cache')} `));
    fs.writeFileSync(
      path.join(prefix, 'nginx.conf'),
      `pid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${prefix}/site.conf;\n}\n`,
    );
    const run = spawnSync(findNginx()!, ['-t', '-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /syntax is ok/);
  } finally {
    fs.rmSync(prefix, { recursive: true, force: true });
  }
});
