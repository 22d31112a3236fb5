import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { lazyChildLogger } from '../../src/http/logging.js';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const parent = pino({ level, redact: ['*.password'] }, stream);
  let children = 0;
  const child = parent.child;
  parent.child = function (this: pino.Logger, b: pino.Bindings, o?: pino.ChildLoggerOptions) {
    children += 1;
    return Reflect.apply(child, this, [b, o]) as pino.Logger;
  } as unknown as typeof parent.child;
  return { parent: parent as unknown as FastifyBaseLogger, lines, children: () => children };
}

test('a request logger is made only when something is logged at an enabled level', () => {
  const { parent, lines, children } = capture('warn');
  const log = lazyChildLogger(parent, { reqId: 'r-1' }, {});
  log.info({ a: 1 }, 'incoming request');
  log.debug('details');
  assert.equal(children(), 0);
  assert.equal(lines.length, 0);
  assert.equal(log.level, 'warn');
  log.warn({ user: { password: 'hunter2' } }, 'slow');
  log.error('failed');
  assert.equal(children(), 1, 'made once, then reused');
  assert.deepEqual(
    lines.map((l) => [l.reqId, l.msg, l.level]),
    [
      ['r-1', 'slow', 40],
      ['r-1', 'failed', 50],
    ],
  );
  assert.deepEqual(lines[0].user, { password: '[Redacted]' }, 'the parent’s redaction applies');
});

test('a request logger’s children and level changes reach pino; a route level gets pino’s child at once', () => {
  const { parent, lines, children } = capture('info');
  const log = lazyChildLogger(parent, { reqId: 'r-2' }, {});
  log.child({ step: 'x' }).info('inner');
  assert.deepEqual([lines[0].reqId, lines[0].step, lines[0].msg], ['r-2', 'x', 'inner']);
  log.level = 'error';
  log.warn('hidden');
  assert.equal(lines.length, 1);
  const routeLevel = lazyChildLogger(parent, { reqId: 'r-3' }, { level: 'debug' });
  assert.equal(children(), 3, 'the request logger, its child, the route-level logger');
  routeLevel.debug('shown');
  assert.equal(lines.at(-1)?.msg, 'shown');
});
