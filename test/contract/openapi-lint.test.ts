// The served /openapi.json passes Redocly CLI's recommended rules (redocly.yaml)
// and Spectral's OpenAPI and OWASP API Security rules (.spectral.yaml) with no
// error. Exceptions live in those two files, each with its reason.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestApp } from '../helpers/app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cli: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      path.join(ROOT, 'node_modules/.bin', cli),
      args,
      {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
        // No telemetry, no update check: a lint run talks to no one.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        if (err && code === -1) reject(err);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

const parse = (what: string, r: Run) => {
  try {
    return JSON.parse(r.stdout);
  } catch {
    assert.fail(`${what} gave no JSON report (exit ${r.code}): ${r.stderr.slice(0, 2000)}`);
  }
};

describe('the served OpenAPI document passes the linters', () => {
  let dir: string;
  let file: string;
  before(async () => {
    const t = await createTestApp('sqlite');
    try {
      const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
      assert.equal(res.statusCode, 200);
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-lint-'));
      file = path.join(dir, 'openapi.json');
      // Pretty-printed, so that a problem's line points somewhere readable.
      fs.writeFileSync(file, JSON.stringify(JSON.parse(res.body), null, 2));
    } finally {
      await t.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('Redocly recommended: no errors', { timeout: 120_000 }, async () => {
    const r = await run('redocly', ['lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format=json']);
    const report = parse('redocly lint', r) as {
      totals: { errors: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    assert.deepEqual(errors, []);
    assert.equal(report.totals.errors, 0);
  });

  test('Spectral with the OWASP API Security ruleset: no errors', { timeout: 120_000 }, async () => {
    const r = await run('spectral', ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--quiet']);
    const results = parse('spectral lint', r) as Array<{ code: string; severity: number; message: string; path: string[] }>;
    // Severity 0 is an error (1 a warning, 2 information, 3 a hint).
    const errors = results.filter((x) => x.severity === 0).map((x) => `${x.code} at ${x.path.join('/')}: ${x.message}`);
    assert.deepEqual(errors, []);
    assert.ok(!results.some((x) => x.code === 'unrecognized-format'), 'Spectral read the file as OpenAPI');
  });
});
