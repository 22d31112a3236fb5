// The scale-out run uses the deployment example itself, with its ports replaced.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { NGINX_SITE, siteConfig } from '../../bench/lib/nginx.js';

test("the deployment example gets the run's upstreams and listen port, and nothing else changes", () => {
  const template = fs.readFileSync(NGINX_SITE, 'utf8');
  const site = siteConfig(template, ['127.0.0.1:41001', '127.0.0.1:41002', '127.0.0.1:41003'], 45555);
  assert.match(site, /upstream paper_bets \{\n    server 127\.0\.0\.1:41001;\n    server 127\.0\.0\.1:41002;\n    server 127\.0\.0\.1:41003;\n/);
  assert.match(site, /listen 127\.0\.0\.1:45555;/);
  assert.doesNotMatch(site, /:300[12];|:8080;/);
  assert.equal(site.split('\n').length, template.split('\n').length + 1);
});

test('a template without upstream servers is refused', () => {
  assert.throws(() => siteConfig('server { listen 127.0.0.1:8080; }', ['127.0.0.1:1'], 2), /no upstream/);
});
