// nginx in front of several instances, from the deployment example in
// deploy/nginx/, run in the foreground with its files in a temporary prefix.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChildServer, freePort, startProcess } from './server.js';

export const NGINX_SITE = path.join('deploy', 'nginx', 'paper-bets.conf');

/** The nginx binary, or null when it is not installed. */
export function findNginx(): string | null {
  for (const candidate of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/bin/nginx']) {
    if (fs.existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** The deployment example with its upstream servers, listen address and cache folder replaced. */
export function siteConfig(template: string, upstreams: string[], port: number, cacheDir: string): string {
  const servers = upstreams.map((u) => `    server ${u};`).join('\n');
  let replaced = false;
  const withUpstreams = template.replace(/(?:^[ \t]*server [0-9.]+:\d+;\n)+/m, () => {
    replaced = true;
    return `${servers}\n`;
  });
  if (!replaced) throw new Error(`${NGINX_SITE}: no upstream "server ADDRESS:PORT;" lines to replace`);
  if (!/proxy_cache_path \S+ /.test(withUpstreams)) throw new Error(`${NGINX_SITE}: no "proxy_cache_path FOLDER" to replace`);
  return withUpstreams.replace(/listen [0-9.]+:\d+;/, `listen 127.0.0.1:${port};`).replace(/proxy_cache_path \S+ /, `proxy_cache_path ${cacheDir} `);
}

export interface NginxServer extends ChildServer {
  /** What nginx wrote to its error log (warnings and worse) so far, line by line. */
  errorLog(): string[];
}

export async function startNginx(binary: string, upstreams: string[]): Promise<NginxServer> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  const port = await freePort();
  fs.writeFileSync(path.join(prefix, 'site.conf'), siteConfig(fs.readFileSync(NGINX_SITE, 'utf8'), upstreams, port, path.join(prefix, 'cache')));
  fs.writeFileSync(
    path.join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'worker_processes auto;',
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/error.log warn;`,
      'events { worker_connections 4096; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/${t};`),
      `  include ${prefix}/site.conf;`,
      '}',
      '',
    ].join('\n'),
  );
  const server = await startProcess('nginx', binary, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], {
    url: `http://127.0.0.1:${port}`,
    timeoutMs: 20_000,
  }).catch((err: unknown) => {
    fs.rmSync(prefix, { recursive: true, force: true });
    throw err;
  });
  return {
    ...server,
    errorLog: () => {
      const file = path.join(prefix, 'error.log');
      return fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l.trim() !== '')
        : [];
    },
    stop: async () => {
      await server.stop();
      fs.rmSync(prefix, { recursive: true, force: true });
    },
  };
}
