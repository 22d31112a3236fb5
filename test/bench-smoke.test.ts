// `npm run bench -- --quick` end to end (tiny data, a second per endpoint), so
// the suite cannot rot. It asserts nothing about speed: only that the report
// is produced and that every endpoint answered 2xx: a missing route or any
// other failed answer fails the test.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Report } from '../bench/lib/report.js';
import { scenarios } from '../bench/lib/scenarios.js';
import { forEachDialect } from './helpers/db.js';

forEachDialect('bench --quick', (dialect) => {
  test('produces the report, and every endpoint answers 2xx', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-smoke-'));
    try {
      // On PostgreSQL the scale-out run (two instances behind nginx) comes too; it reports itself skipped without nginx.
      const extra = dialect === 'postgres' ? ['--scale-out'] : [];
      const run = spawnSync('npm', ['run', '--silent', 'bench', '--', '--quick', '--db', dialect, '--out', out, ...extra], {
        encoding: 'utf8',
        timeout: 180_000,
      });
      assert.equal(run.status, 0, `bench failed:\n${run.stdout}\n${run.stderr}`);
      const files = fs.readdirSync(out);
      const json = files.find((f) => f.endsWith(`-${dialect}-tiny.json`));
      assert.ok(json, `no JSON report in ${files.join(', ')}`);
      for (const ext of ['.md', '.svg']) assert.ok(files.includes(json.replace(/\.json$/, ext)), `no ${ext} report`);
      const report = JSON.parse(fs.readFileSync(path.join(out, json), 'utf8')) as Report;

      assert.ok(report.baseline.requestsPerSecond > 0);
      assert.deepEqual(
        report.results.map((r) => r.key),
        scenarios(80).map((s) => s.key),
      );
      if (dialect === 'postgres') {
        assert.ok(report.scaleOut, 'no scale-out section');
        if (report.scaleOut.status === 'ok') assert.equal(report.scaleOut.results.length, report.results.length);
      }
      const scaled = report.scaleOut?.results.map((r) => ({ ...r, label: `${r.label} behind nginx` })) ?? [];
      for (const r of [...report.results, ...scaled, { label: 'leaderboard during logins', ...report.loginMix }]) {
        assert.equal(r.status, 'ok', `${r.label}: ${r.status} ${r.detail ?? ''}`);
      }
      // A read that missed its ratio was measured again as the bare server: its body's size, then its exact answer replayed.
      for (const r of report.results.filter((x) => x.bodyCeiling)) {
        assert.ok(r.bodyCeiling!.requestsPerSecond > 0, r.label);
        assert.ok(r.answerCeiling && r.answerCeiling.requestsPerSecond > 0, `${r.label}: no replayed answer`);
        assert.ok(r.answerCeiling.headers >= 2, `${r.label}: the replay lost the answer's headers`);
      }
      const health = report.results.find((r) => r.key === 'health')!;
      assert.equal(health.status, 'ok');
      assert.ok(health.measured!.perSecond > 0);
      assert.ok(report.memory.peakRssMb > 0);
      assert.match(fs.readFileSync(path.join(out, json.replace(/\.json$/, '.svg')), 'utf8'), /^<svg [^>]*>[\s\S]*<\/svg>\n$/);
      assert.match(fs.readFileSync(path.join(out, json.replace(/\.json$/, '.md')), 'utf8'), /\| GET \/leaderboard \|/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
