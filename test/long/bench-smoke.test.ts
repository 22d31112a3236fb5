// `npm run bench -- --quick` end to end (tiny data, a second per scenario), so
// the suite cannot rot. It asserts nothing about speed: only that the report
// is produced, that every scenario answered 2xx (a missing route or any other
// failed answer fails the test), and that the report holds what the method
// promises: both hello worlds, the fan-out, on PostgreSQL the pgbench anchors
// and the scale-out through nginx. Without wrk (a fresh machine) it is
// skipped, saying so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PRESETS } from '../../bench/lib/presets.js';
import type { Report } from '../../bench/lib/report.js';
import { scenarios } from '../../bench/lib/scenarios.js';
import { findWrk, WRK_MISSING } from '../../bench/lib/wrk.js';
import { forEachDialect } from '../helpers/db.js';

const skip = findWrk() ? false : `${WRK_MISSING}: the benchmark's load generator`;
if (skip) console.log(`bench --quick skipped: ${skip}`);

forEachDialect('bench --quick', (dialect) => {
  test('produces the report, and every scenario answers 2xx', { skip, timeout: 240_000 }, () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
    try {
      // On PostgreSQL the scale-out run (two instances behind nginx) comes too; it reports itself skipped without nginx.
      const extra = dialect === 'postgres' ? ['--scale-out'] : [];
      const run = spawnSync('npm', ['run', '--silent', 'bench', '--', '--quick', '--db', dialect, '--out', out, ...extra], {
        encoding: 'utf8',
        timeout: 230_000,
      });
      assert.equal(run.status, 0, `bench failed:\n${run.stdout}\n${run.stderr}`);
      const files = fs.readdirSync(out);
      const json = files.find((f) => f.endsWith(`-${dialect}-tiny.json`));
      assert.ok(json, `no JSON report in ${files.join(', ')}`);
      for (const ext of ['.md', '.svg']) assert.ok(files.includes(json.replace(/\.json$/, ext)), `no ${ext} report`);
      const report = JSON.parse(fs.readFileSync(path.join(out, json), 'utf8')) as Report;

      assert.ok(report.baseline.requestsPerSecond > 0);
      assert.ok(report.bareBaseline && report.bareBaseline.requestsPerSecond > 0, 'no hello world without logging');
      assert.match(report.meta.service?.command ?? '', /^node .*scripts\/start\.mjs$/);
      assert.equal(report.meta.service?.env.NODE_ENV, 'production');
      for (const name of ['RATE_LIMITS', 'LOG_LEVEL', 'WORKERS']) assert.equal(report.meta.service?.env[name], undefined, name);
      assert.equal(report.meta.service?.env.JWT_SECRET, '[redacted]');
      assert.deepEqual(
        report.results.map((r) => r.key),
        scenarios(PRESETS.tiny, dialect, 16).map((s) => s.key),
      );
      if (dialect === 'postgres') {
        assert.equal(report.anchors?.status, 'ok', `anchors: ${report.anchors?.status} ${report.anchors?.detail ?? ''}`);
        assert.ok(report.anchors!.pgbenchN!.tps > 0 && report.anchors!.pgbenchS!.tps > 0);
        const pairs = report.results.find((r) => r.key === 'bet-pairs')!;
        assert.ok((pairs.measured?.ratioPgbenchN ?? 0) > 0, 'no ratio to pgbench -N');
        assert.ok(report.scaleOut, 'no scale-out section');
        if (report.scaleOut.status === 'ok') {
          assert.deepEqual(
            report.scaleOut.results.map((r) => r.key),
            ['health', 'leaderboard', 'leaderboard-window', 'price', 'public', 'bet-page', 'bet-pairs'],
          );
          assert.equal(report.scaleOut.all2xx, true);
          assert.ok(report.scaleOut.nginxHello && report.scaleOut.nginxHello.requestsPerSecond > 0, 'no hello world through nginx');
          const shared = report.scaleOut.results.filter((r) => r.sharedPublic);
          assert.ok(shared.length >= 3, 'the public reads nginx caches');
          for (const r of shared) assert.ok((r.measured?.ratioNginxHello ?? 0) > 0, `${r.label}: no ratio to the hello world via nginx`);
        }
      }
      const scaled = report.scaleOut?.results.map((r) => ({ ...r, label: `${r.label} behind nginx` })) ?? [];
      for (const r of [...report.results, ...scaled, { label: 'leaderboard during logins', ...report.loginMix }]) {
        assert.equal(r.status, 'ok', `${r.label}: ${r.status} ${r.detail ?? ''}`);
      }
      // Zero with no error: no request completed within the run (wrk leaves those in flight at its end uncounted).
      for (const r of report.results) {
        const m = r.measured!;
        assert.ok(m.perSecond > 0, `${r.label}: nothing completed (${m.perSecond}/s, max ${m.maxMs} ms, CPU ${JSON.stringify(m.cpu)})`);
        // The service's metrics were scraped around the load: the longest stall and its cause (or none).
        assert.ok(m.stalls, `${r.label}: no stall figures (the service's metrics port did not answer)`);
      }
      // A read that missed its ratio was measured again as the hello world: its body's size, then its exact answer replayed.
      for (const r of report.results.filter((x) => x.bodyCeiling)) {
        assert.ok(r.bodyCeiling!.requestsPerSecond > 0, r.label);
        assert.ok(r.answerCeiling && r.answerCeiling.requestsPerSecond > 0, `${r.label}: no replayed answer`);
        assert.ok(r.answerCeiling.headers >= 2, `${r.label}: the replay lost the answer's headers`);
      }
      assert.equal(report.fanOut?.status, 'ok', `fan-out: ${report.fanOut?.detail ?? 'missing'}`);
      assert.deepEqual(
        report.fanOut!.steps.map((s) => s.followers),
        [0, ...PRESETS.tiny.fanOut],
      );
      // The trigger engine's check: rules planted, every read measured without and with them, the firings read back.
      const t = report.triggers;
      assert.equal(t?.status, 'ok', `triggers: ${t?.detail ?? 'missing'}`);
      assert.equal(t!.planted!.total, 1_000);
      assert.ok(t!.planted!.exits > 0 && t!.planted!.alerts > 0);
      for (const r of t!.reads!) assert.ok(r.without.rps > 0 && r.with.rps > 0, `${r.label}: nothing completed`);
      assert.ok(Array.isArray(t!.latencies?.alerts) && Array.isArray(t!.latencies?.exits));
      assert.ok(report.memory.peakRssMb > 0);
      assert.match(fs.readFileSync(path.join(out, json.replace(/\.json$/, '.svg')), 'utf8'), /^<svg [^>]*>[\s\S]*<\/svg>\n$/);
      assert.match(fs.readFileSync(path.join(out, json.replace(/\.json$/, '.md')), 'utf8'), /\| GET \/leaderboard \|/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
