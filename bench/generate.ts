// Fills a database with a benchmark population.
//   npm run bench:generate -- [--size full|small|tiny] [--db sqlite|postgres] [--schema NAME]
// Target: DATABASE_URL when set (sqlite:PATH or postgres://…), else ./data/bench-<size>.db.
import { parseArgs } from 'node:util';
import { databaseUrlOf, generate } from './lib/generate.js';
import { presetNamed } from './lib/presets.js';
import { BENCH_PASSWORD, emailOf, ROLES } from './lib/roles.js';
import { type DbKind, generateTargetFrom } from './lib/targets-db.js';

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: 'full' },
    db: { type: 'string' },
    schema: { type: 'string' },
  },
});
if (values.db !== undefined && values.db !== 'sqlite' && values.db !== 'postgres') {
  console.error('--db must be sqlite or postgres');
  process.exit(2);
}
const preset = presetNamed(values.size!);
const target = generateTargetFrom(process.env, values.db as DbKind | undefined, preset.name, values.schema);
await generate(preset, target);
console.log(`\nDATABASE_URL=${databaseUrlOf(target)}`);
console.log(`Every user's password: "${BENCH_PASSWORD}"; for example ${emailOf(ROLES.demo.id)}.`);
