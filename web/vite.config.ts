// The build names its assets relative to the page (base './'), so one build
// runs under any WEB_URL: the service tells the page where it is mounted with
// a <base href> when it serves index.html (src/http/web-app.ts). The dev
// server has no such step, so it serves the app at the default path, /app/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig(({ command }) => ({
  root: here,
  base: command === 'build' ? './' : '/app/',
  plugins: [react()],
  build: { outDir: path.join(here, 'dist'), emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
  server: { proxy: { '^/(?!app/).*': 'http://localhost:3000' } },
}));
