// What each compression level costs on a /feed answer (a page of 100 closed
// bets of followed users, about 25 KB, some with a thesis): main-thread CPU
// time a call and the compressed size, for brotli qualities 0 to 4 (256 KiB
// window, text mode, as src/http/compression.ts sets them) and gzip levels
// 1 to 6, each compressed in one call as @fastify/compress does below its
// inline limit. The levels compression.ts uses are marked. It measures one
// process on one core: run it on an otherwise idle machine.
//   node --import tsx bench/compression-levels.ts [--calls 2000]
import { parseArgs } from 'node:util';
import { type BrotliOptions, brotliCompressSync, constants, gzipSync, type ZlibOptions } from 'node:zlib';
import { ONCE, PER_REQUEST } from '../src/http/compression.js';
import { seededRng } from './lib/random.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '2000' } } });
const calls = Number(values.calls);

const TICKERS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META', 'TSLA', 'BTC-USD', 'ETH-USD', 'SPY', 'QQQ', 'AMD', 'NFLX', 'JPM'];
const WORDS = 'earnings guidance beat margins demand supply rates cut momentum breakout support resistance valuation cheap rich cycle'.split(' ');

/** A /feed page as the route serializes it (src/schemas/social.ts), from seeded data. */
function feedPage(items: number): string {
  const rng = seededRng(35);
  const start = Date.parse('2026-06-01T14:30:00Z');
  const page = Array.from({ length: items }, (_, i) => {
    const entry = Math.round((20 + rng.next() * 480) * 100) / 100;
    const exit = Math.round(entry * (1 + rng.normal() * 0.04) * 100) / 100;
    const direction = rng.next() < 0.7 ? 'LONG' : 'SHORT';
    const gain = Math.round(((direction === 'LONG' ? exit / entry : entry / exit) - 1) * 10_000) / 100;
    const opened = start - (items - i) * 3_600_000 - rng.int(86_400_000);
    const withThesis = rng.next() < 0.25;
    return {
      id: 120_000 - i * 7 - rng.int(7),
      ticker: TICKERS[rng.int(TICKERS.length)],
      direction,
      entry_price: entry,
      exit_price: exit,
      percentage_gain: gain,
      exit_date: new Date(opened + rng.int(14) * 86_400_000 + 3_600_000).toISOString(),
      entry_date: new Date(opened).toISOString(),
      user_id: 1 + rng.int(5_000),
      username: `trader_${rng.int(100_000).toString(36)}`,
      status: 'CLOSED',
      ...(withThesis
        ? {
            thesis: Array.from({ length: 12 + rng.int(30) }, () => WORDS[rng.int(WORDS.length)]).join(' '),
            thesis_salt: Array.from({ length: 32 }, () => rng.int(16).toString(16)).join(''),
            thesis_state: 'shown',
          }
        : {}),
    };
  });
  return JSON.stringify(page);
}

const brotli = (quality: number): BrotliOptions => ({
  params: {
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_LGWIN]: 18,
  },
});
const used = (levels: typeof ONCE, encoding: 'br' | 'gzip', level: number): boolean =>
  encoding === 'br' ? levels.brotli.params?.[constants.BROTLI_PARAM_QUALITY] === level : (levels.gzip.level ?? 6) === level;

function measure(compress: () => Buffer): { micros: number; bytes: number } {
  const bytes = compress().length;
  for (let i = 0; i < Math.min(200, calls); i++) compress();
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) compress();
  const spent = process.cpuUsage(before);
  return { micros: (spent.user + spent.system) / calls, bytes };
}

const body = Buffer.from(feedPage(100));
console.log(`/feed page: ${body.length} bytes, ${calls} calls a level\n`);
console.log('encoding level  CPU µs/call  bytes  ratio  used for');
const rows: Array<['br' | 'gzip', number, () => Buffer]> = [
  ...[0, 1, 2, 3, 4].map((q): ['br', number, () => Buffer] => ['br', q, () => brotliCompressSync(body, brotli(q))]),
  ...[1, 2, 3, 4, 5, 6].map((l): ['gzip', number, () => Buffer] => ['gzip', l, () => gzipSync(body, { level: l } satisfies ZlibOptions)]),
];
for (const [encoding, level, compress] of rows) {
  const { micros, bytes } = measure(compress);
  const use = [used(PER_REQUEST, encoding, level) ? 'per request' : '', used(ONCE, encoding, level) ? 'once' : ''].filter(Boolean).join(', ');
  console.log(
    `${encoding.padEnd(8)} ${String(level).padStart(5)}  ${micros.toFixed(1).padStart(11)}  ${String(bytes).padStart(5)}  ${(body.length / bytes).toFixed(2).padStart(5)}  ${use}`,
  );
}
