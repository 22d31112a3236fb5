// The only place that listens on a port and handles process signals.
import v8 from 'node:v8';
import { buildApp } from './app.js';
import { type Config, ConfigError, loadConfig } from './config.js';

/**
 * After each full collection V8 lets the old generation grow to up to four
 * times what it kept before collecting again, when collections cost it little
 * (as here): under a heavy read's load the heap reached 190-220 MB of mostly
 * promoted garbage. Twice what was kept bounds it near 100 MB with the same
 * throughput (docs/performance.md, Memory); 1.5 times cost a tenth of the
 * feed's. Read at every collection, so setting it here applies to the whole run.
 */
const HEAP_GROWING_PERCENT = 100;

async function main(): Promise<void> {
  // One given on the command line or in NODE_OPTIONS is the operator's choice, and stays.
  if (![...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes('--heap-growing-percent')))
    v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const app = await buildApp(config);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`API at ${config.publicUrl}  web app at ${config.webUrl}  docs at ${config.publicUrl}/docs`);
}

main().catch((err) => {
  console.error('Failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
