import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { RequestMetrics } from '../../src/lib/request-metrics.js';

test('requests are counted per method, route and status, and timed in cumulative buckets, in Prometheus text', async () => {
  const registry = new Registry();
  const m = new RequestMetrics(registry, [0.01, 0.1]);
  m.record('GET', '/leaderboard', 200, 0.004);
  m.record('GET', '/leaderboard', 200, 0.05);
  m.record('GET', '/leaderboard', 429, 0.5);
  m.record('POST', '/bet/open', 201, 0.01);
  const text = await registry.metrics();
  assert.equal(
    text,
    [
      '# HELP http_requests_total HTTP requests answered, by method, route pattern and status',
      '# TYPE http_requests_total counter',
      'http_requests_total{method="GET",route="/leaderboard",status="200"} 2',
      'http_requests_total{method="GET",route="/leaderboard",status="429"} 1',
      'http_requests_total{method="POST",route="/bet/open",status="201"} 1',
      '',
      '# HELP http_request_duration_seconds Time to answer an HTTP request, by method and route pattern',
      '# TYPE http_request_duration_seconds histogram',
      'http_request_duration_seconds_bucket{le="0.01",method="GET",route="/leaderboard"} 1',
      'http_request_duration_seconds_bucket{le="0.1",method="GET",route="/leaderboard"} 2',
      'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/leaderboard"} 3',
      'http_request_duration_seconds_sum{method="GET",route="/leaderboard"} 0.554',
      'http_request_duration_seconds_count{method="GET",route="/leaderboard"} 3',
      'http_request_duration_seconds_bucket{le="0.01",method="POST",route="/bet/open"} 1',
      'http_request_duration_seconds_bucket{le="0.1",method="POST",route="/bet/open"} 1',
      'http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/bet/open"} 1',
      'http_request_duration_seconds_sum{method="POST",route="/bet/open"} 0.01',
      'http_request_duration_seconds_count{method="POST",route="/bet/open"} 1',
      '',
    ].join('\n'),
  );
  registry.resetMetrics();
  assert.doesNotMatch(await registry.metrics(), /route=/);
});

test('label values are escaped as Prometheus requires', async () => {
  const registry = new Registry();
  const m = new RequestMetrics(registry, [1]);
  m.record('GET', '/a"b\\c', 200, 0.5);
  assert.match(await registry.metrics(), /http_requests_total\{method="GET",route="\/a\\"b\\\\c",status="200"\} 1/);
});
