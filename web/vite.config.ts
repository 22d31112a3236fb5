// The build names its assets relative to the page (base './'), so one build
// runs under any WEB_URL: the service tells the page where it is mounted with
// a <base href> when it serves index.html (src/http/web-app.ts). The dev
// server has no such step, so it serves the app at the default path, /app/.
//
// Delivery: every text file of the build gets .br and .gz siblings here, once,
// which the service sends as the browser accepts (@fastify/static's
// preCompressed): no compression work per request. Source maps are written
// beside the files, without the comment pointing browsers at them, and the
// service does not serve them. The chart library is a chunk of its own
// ("charts"), loaded only by the pages that draw a chart.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));
const outDir = path.join(here, 'dist');
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|webmanifest)$/;

/** Writes name.br (brotli, best) and name.gz (gzip, best) beside every compressible file of the build. */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const files = fs.readdirSync(outDir, { recursive: true }).map(String);
      for (const file of files) {
        if (!COMPRESSIBLE.test(file)) continue;
        const full = path.join(outDir, file);
        const data = fs.readFileSync(full);
        fs.writeFileSync(
          `${full}.br`,
          zlib.brotliCompressSync(data, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          }),
        );
        fs.writeFileSync(`${full}.gz`, zlib.gzipSync(data, { level: zlib.constants.Z_BEST_COMPRESSION }));
      }
    },
  };
}

export default defineConfig(({ command }) => ({
  root: here,
  base: command === 'build' ? './' : '/app/',
  plugins: [react(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    sourcemap: 'hidden',
    chunkSizeWarningLimit: 1000,
    rolldownOptions: {
      output: { codeSplitting: { groups: [{ name: 'charts', test: /node_modules[\\/]lightweight-charts/ }] } },
    },
  },
  server: { proxy: { '^/(?!app/).*': 'http://localhost:3000' } },
}));
