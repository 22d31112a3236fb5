import { runLoad } from '../bench/lib/load.js';
import { startServer } from '../bench/lib/server.js';
for (let round = 0; round < 2; round++)
for (const v of ['hello', 'hello+5', 'big', 'big+5']) {
  const s = await startServer(v, 'scratch/ceiling-server.ts', { VARIANT: v });
  await runLoad({ url: s.url, steps: [{ method: 'GET', path: '/' }], connections: 64, durationS: 2 });
  const r = await runLoad({ url: s.url, steps: [{ method: 'GET', path: '/' }], connections: 64, durationS: 8 });
  console.log(v.padEnd(10), Math.round(r.rps), 'req/s');
  await s.stop();
}
