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
import vm from 'node:vm';

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
