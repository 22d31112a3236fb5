// dist/main.js: starts the server bundle (dist/server.cjs) with V8's code
// cache. Node 20 compiles a 3 MB bundle from its source at every start (about
// a quarter of the time to the first answer); V8 can instead take the
// compiled code it produced last time. The cache sits beside the bundle, one
// file per Node version and architecture, and is written a few seconds after
// a start that had none (or whose cache V8 refused: another bundle, another
// V8), by then holding the functions the start compiled. V8 checks the
// source's hash and its own version and flags before using a cache, so a
// stale or foreign file costs one normal compile. Where dist/ is read-only
// (the Docker image's user) the service starts as without a cache.
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

// After each full collection V8 lets the old generation grow to up to four
// times what it kept before collecting again, when collections cost it little
// (as here): under a heavy read's load the heap reached 190-220 MB of mostly
// promoted garbage. Twice what was kept bounds it near 120 MB with the same
// throughput (docs/performance.md, Memory); 1.5 times cost a tenth of the
// feed's. V8 reads it at every collection. Set before the bundle is compiled:
// V8 takes a code cache only under the flags it was made with. One given on
// the command line or in NODE_OPTIONS is the operator's choice, and stays.
const HEAP_GROWING_PERCENT = 100;
if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('--heap-growing-percent'))) {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const file = fileURLToPath(new URL('./server.cjs', import.meta.url));
const cacheFile = `${file}.${process.version}-${process.arch}.v8-cache`;
const WRITE_AFTER_MS = 5_000;

let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), {
  filename: file,
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});

if (cachedData === undefined || script.cachedDataRejected) {
  setTimeout(() => {
    const temporary = `${cacheFile}.${process.pid}`;
    try {
      fs.writeFileSync(temporary, script.createCachedData());
      fs.renameSync(temporary, cacheFile);
    } catch {
      fs.rmSync(temporary, { force: true });
    }
  }, WRITE_AFTER_MS).unref();
}

const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
