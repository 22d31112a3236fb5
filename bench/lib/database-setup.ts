// The database a benchmark run uses: a copy of a cached, pristine SQLite
// population (the run's writes never leak into the next run), a throw-away
// one for quick runs, or a freshly generated PostgreSQL schema.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { DATASET_SETTING, databaseUrlOf, datasetStamp, type GenerateSummary, generate, type GenerateTarget } from './generate.js';
import type { Preset } from './presets.js';
import { type DbKind, postgresServerUrl } from './targets-db.js';

export interface RunDatabase {
  databaseUrl: string;
  dataset: GenerateSummary | { reused: string };
  cleanup(): Promise<void>;
}

export interface SetupOptions {
  db: DbKind;
  preset: Preset;
  /** A throw-away database (quick runs). */
  throwAway: boolean;
  regenerate: boolean;
  log: (line: string) => void;
}

export async function setupRunDatabase(opts: SetupOptions): Promise<RunDatabase> {
  const { preset, log } = opts;
  if (opts.db === 'postgres') {
    const url = postgresServerUrl(process.env);
    const schema = opts.throwAway ? `bench_quick_${randomBytes(4).toString('hex')}` : `bench_${preset.name}`;
    const target: GenerateTarget = { dialect: 'postgres', url, schema };
    const dataset = await generate(preset, target, log);
    return {
      databaseUrl: databaseUrlOf(target),
      dataset,
      cleanup: async () => {
        if (!opts.throwAway) return;
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`drop schema if exists ${schema} cascade`);
        await c.end();
      },
    };
  }
  if (opts.throwAway) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'));
    const file = path.join(dir, `${preset.name}.db`);
    const dataset = await generate(preset, { dialect: 'sqlite', path: file }, log);
    return { databaseUrl: `sqlite:${file}`, dataset, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const pristine = path.join('data', `bench-${preset.name}.db`);
  let dataset: RunDatabase['dataset'];
  if (!opts.regenerate && stampOf(pristine) === datasetStamp(preset)) {
    log(`Reusing ${pristine} (generated earlier; --regenerate to rebuild it).`);
    dataset = { reused: pristine };
  } else {
    dataset = await generate(preset, { dialect: 'sqlite', path: pristine }, log);
  }
  const copy = path.join('data', `bench-${preset.name}.run.db`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(copy + suffix, { force: true });
  fs.copyFileSync(pristine, copy);
  // On disk before the first measurement: otherwise the kernel writes the
  // copy's gigabyte back while the first endpoints run, and they pay for it.
  const fd = fs.openSync(copy, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return { databaseUrl: `sqlite:${copy}`, dataset, cleanup: async () => undefined };
}

function stampOf(file: string): string | null {
  if (!fs.existsSync(file)) return null;
  try {
    const db = new SQLite(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('select value from settings where key = ?').get(DATASET_SETTING) as { value: string } | undefined;
      return row?.value ?? null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
