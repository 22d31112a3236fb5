// Runs several test files in this one process, each as a suite named by its
// path (scripts/run-tests.mjs starts a few of these instead of a process per
// file: loading the app's packages through the TypeScript loader costs seconds
// a process). A file's top-level hooks stay scoped to its own suite, because
// the file is imported inside that suite's callback. When TEST_TIMINGS_FILE is
// set, each file's wall time is written there, so the next run can balance the
// groups by it.
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { pathToFileURL } from 'node:url';

const files: string[] = JSON.parse(process.env.TEST_GROUP_FILES ?? '[]');
const timings: Record<string, number> = {};

for (const file of files) {
  describe(file, async () => {
    // Suites are built when registered and run later: time from the first hook.
    let started = 0;
    before(() => {
      started = performance.now();
    });
    after(() => {
      timings[file] = Math.round(performance.now() - started);
    });
    await import(pathToFileURL(path.resolve(file)).href);
  });
}

after(() => {
  const out = process.env.TEST_TIMINGS_FILE;
  if (out) fs.writeFileSync(out, JSON.stringify(timings));
});
