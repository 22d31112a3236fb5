// Several real server processes on one database, and the tests' own
// round-robin client in front of them (each request to the next instance).
import { randomInt } from 'node:crypto';
import { PASSWORD, uniqueName } from './app.js';
import { type ServerProcess, startServer } from './server-process.js';

export interface Cluster {
  servers: ServerProcess[];
  bases: string[];
  stop(): Promise<void>;
}

/** Stops a server with SIGTERM (SIGKILL if it has not exited in 15 s). */
export async function stopServer(s: ServerProcess): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  s.child.kill('SIGTERM');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 15_000);
  await s.exited;
  clearTimeout(timer);
}

/** Starts n instances together (so they also migrate together) with the same environment. */
export async function startCluster(n: number, env: Record<string, string>): Promise<Cluster> {
  const servers = Array.from({ length: n }, () => startServer(env));
  const stop = async () => {
    await Promise.all(servers.map(stopServer));
  };
  try {
    const bases = await Promise.all(servers.map((s) => s.ready));
    return { servers, bases, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A made-up client address, sent as X-Forwarded-For (the servers trust the loopback proxy), so per-IP limits of one test never meet another's. */
export function clientIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export interface Reply<T = unknown> {
  status: number;
  /** The JSON the caller expects (T), or the text if it was not JSON, or null if empty. */
  body: T;
  headers: Headers;
  /** Which instance answered. */
  instance: number;
}

export interface RequestOptions {
  body?: unknown;
  cookie?: string;
  /** Send to this instance instead of the next one in turn. */
  instance?: number;
  headers?: Record<string, string>;
}

/** One client (one IP) that sends each request to the next instance in turn. */
export class RoundRobin {
  private turn = 0;
  constructor(
    readonly bases: string[],
    readonly ip: string = clientIp(),
  ) {}

  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const instance = opts.instance ?? this.turn++ % this.bases.length;
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...opts.headers };
    if (opts.cookie) headers.cookie = opts.cookie;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.bases[instance]}${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    return { status: res.status, body: body as T, headers: res.headers, instance };
  }
}

export interface ClusterUser {
  id: number;
  username: string;
  email: string;
  cookie: string;
  /** The user's own client (own IP), round-robin over the instances. */
  client: RoundRobin;
}

/** Registers on one instance and logs in on the next, as the round-robin client does. */
export async function registerUser(bases: string[], prefix = 'i'): Promise<ClusterUser> {
  const client = new RoundRobin(bases);
  const username = uniqueName(prefix);
  const email = `${username}@example.test`;
  const reg = await client.request('POST', '/register', { body: { username, email, password: PASSWORD } });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await client.request<{ id: number }>('POST', '/login', { body: { email, password: PASSWORD } });
  if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
  const cookie = /auth_token=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
  if (!cookie) throw new Error('login set no auth_token cookie');
  return { id: login.body.id, username, email, cookie, client };
}

/** Polls until check() returns true; fails with the message after the deadline. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
