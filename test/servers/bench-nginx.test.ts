// The scale-out run uses the deployment example itself, with its ports replaced.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findNginx, NGINX_SITE, plainSiteConfig, siteConfig } from '../../bench/lib/nginx.js';

test("the deployment example gets the run's upstreams, listen port and cache folder, and nothing else changes", () => {
  const template = fs.readFileSync(NGINX_SITE, 'utf8');
  const site = siteConfig(template, ['127.0.0.1:41001', '127.0.0.1:41002', '127.0.0.1:41003'], 45555, '/tmp/run/cache');
  assert.match(site, /upstream paper_bets \{\n {4}server 127\.0\.0\.1:41001;\n {4}server 127\.0\.0\.1:41002;\n {4}server 127\.0\.0\.1:41003;\n/);
  assert.match(site, /listen 127\.0\.0\.1:45555;/);
  assert.match(site, /proxy_cache_path \/tmp\/run\/cache levels=/);
  assert.doesNotMatch(site, /:300[12];|:8080;/);
  assert.equal(site.split('\n').length, template.split('\n').length + 1);
});

test('the hello world’s site is the example without its cache: same proxying, one upstream, no cached location', () => {
  const template = fs.readFileSync(NGINX_SITE, 'utf8');
  const site = plainSiteConfig(template, '127.0.0.1:41009', 45556, 'bench_plain_0');
  assert.match(site, /upstream bench_plain_0 \{\n {4}server 127\.0\.0\.1:41009;\n/);
  assert.match(site, /listen 127\.0\.0\.1:45556;/);
  assert.match(site, /location \/ \{\n\s+proxy_pass http:\/\/bench_plain_0;/);
  assert.doesNotMatch(site, /proxy_cache|paper_bets|location ~/);
  for (const directive of ['keepalive 64;', 'keepalive_requests', 'proxy_http_version 1.1;', 'proxy_buffers'])
    assert.ok(site.includes(directive), directive);
});

test('a template without upstream servers is refused', () => {
  assert.throws(() => siteConfig('server { listen 127.0.0.1:8080; }', ['127.0.0.1:1'], 2, '/tmp/c'), /no upstream/);
});

test('nginx accepts the deployment example and the hello world’s site beside it (nginx -t), with 127.0.0.1 upstreams', {
  skip: findNginx() ? false : 'nginx is not installed (Debian: apt-get install nginx)',
}, () => {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-t-'));
  try {
    fs.writeFileSync(
      path.join(prefix, 'site.conf'),
      siteConfig(fs.readFileSync(NGINX_SITE, 'utf8'), ['127.0.0.1:3001', '127.0.0.1:3002'], 8080, path.join(prefix, 'cache')),
    );
    fs.writeFileSync(path.join(prefix, 'plain.conf'), plainSiteConfig(fs.readFileSync(NGINX_SITE, 'utf8'), '127.0.0.1:3003', 8081, 'bench_plain_0'));
    fs.writeFileSync(
      path.join(prefix, 'nginx.conf'),
      `pid ${prefix}/nginx.pid;\nerror_log ${prefix}/error.log;\nevents {}\nhttp {\n  access_log off;\n  include ${prefix}/site.conf;\n  include ${prefix}/plain.conf;\n}\n`,
    );
    const run = spawnSync(findNginx()!, ['-t', '-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /syntax is ok/);
  } finally {
    fs.rmSync(prefix, { recursive: true, force: true });
  }
});
