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

/** The location blocks of a site whose body caches (a `proxy_cache` directive), removed. */
function withoutCachedLocations(site: string): string {
  let out = site;
  for (;;) {
    const re = /^[ \t]*location\b[^{\n]*\{/gm;
    let removed = false;
    for (let m = re.exec(out); m; m = re.exec(out)) {
      let depth = 0;
      let end = -1;
      for (let i = m.index + m[0].length - 1; i < out.length; i++) {
        if (out[i] === '{') depth++;
        else if (out[i] === '}' && --depth === 0) {
          end = i + 1;
          break;
        }
      }
      if (end < 0) throw new Error(`${NGINX_SITE}: a location block is not closed`);
      if (/^\s*proxy_cache\s/m.test(out.slice(m.index, end))) {
        out = out.slice(0, m.index) + out.slice(end + (out[end] === '\n' ? 1 : 0));
        removed = true;
        break;
      }
    }
    if (!removed) return out;
  }
}

/**
 * The deployment example's proxying without its cache, for a hello world:
 * the same server settings and `location /`, one upstream named `name`, no
 * cache folder and no cached locations. What any answer costs through this
 * nginx, against which the micro-cached public reads are judged.
 */
export function plainSiteConfig(template: string, upstream: string, port: number, name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad upstream name "${name}"`);
  const site = withoutCachedLocations(template.replace(/^[ \t]*proxy_cache_path [^\n]*\n/m, ''))
    .replace(/(?:^[ \t]*server [0-9.]+:\d+;\n)+/m, `    server ${upstream};\n`)
    .replace(/\bpaper_bets\b/g, name)
    .replace(/listen [0-9.]+:\d+;/, `listen 127.0.0.1:${port};`);
  if (/proxy_cache/.test(site)) throw new Error(`${NGINX_SITE}: a proxy_cache directive outside a location block`);
  return site;
}

export interface NginxServer extends ChildServer {
  /** What nginx wrote to its error log (warnings and worse) so far, line by line. */
  errorLog(): string[];
  /** The URLs of the plain sites, in the order asked. */
  plainUrls: string[];
}

/** nginx with the deployment example in front of `upstreams`, and a plain (uncached) site in front of each of `plainUpstreams`. */
export async function startNginx(binary: string, upstreams: string[], plainUpstreams: string[] = []): Promise<NginxServer> {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  // Started as root, nginx's workers run as nobody: they must reach the cache and temporary folders inside.
  fs.chmodSync(prefix, 0o755);
  const port = await freePort();
  const template = fs.readFileSync(NGINX_SITE, 'utf8');
  fs.writeFileSync(path.join(prefix, 'site.conf'), siteConfig(template, upstreams, port, path.join(prefix, 'cache')));
  const plainPorts: number[] = [];
  for (const [i, upstream] of plainUpstreams.entries()) {
    const p = await freePort();
    plainPorts.push(p);
    fs.writeFileSync(path.join(prefix, `plain-${i}.conf`), plainSiteConfig(template, upstream, p, `bench_plain_${i}`));
  }
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
      ...plainPorts.map((_, i) => `  include ${prefix}/plain-${i}.conf;`),
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
    plainUrls: plainPorts.map((p) => `http://127.0.0.1:${p}`),
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
