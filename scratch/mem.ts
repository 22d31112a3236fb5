import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
const show = (l: string) => { const m = process.memoryUsage(); console.log(l, Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Math.round(v / 1048576)]))); };
show('start');
const app = await buildApp(loadConfig({ DATABASE_URL: 'sqlite:/tmp/lb.db', WORKERS: 'off', LOG_LEVEL: 'warn', RATE_LIMITS: 'off' }));
show('built');
globalThis.gc?.();
show('after gc');
await app.close();
