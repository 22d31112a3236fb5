// The web app is served by the service under WEB_URL's path (default /app/);
// the build must name its assets under that same path.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

function basePath(): string {
  const raw = process.env.WEB_URL;
  if (!raw) return '/app/';
  const p = new URL(raw).pathname;
  return p.endsWith('/') ? p : `${p}/`;
}

export default defineConfig({
  root: here,
  base: basePath(),
  plugins: [react()],
  build: { outDir: path.join(here, 'dist'), emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1000 },
  server: { proxy: { '^/(?!app/).*': 'http://localhost:3000' } },
});
