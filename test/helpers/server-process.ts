// The real server as a child process (node --import tsx src/main.ts), for the
// shutdown and crash suites: it listens on a free port and logs JSON lines.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServerProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  logs: Array<Record<string, unknown>>;
  /** Resolves with the base URL once the server listens; rejects if it exits first. */
  ready: Promise<string>;
  /** Resolves with the first log entry (past or future) matching pred. */
  waitForLog(pred: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

export function startServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      RATE_LIMITS: 'off',
      // Suites register users many at a time on a loaded machine; the queue's bounds are tested elsewhere.
      HASH_QUEUE_MAX: '10000',
      HASH_QUEUE_WAIT_MS: '60000',
      LOG_LEVEL: 'info',
      JWT_SECRET: 'crash-suite-secret-crash-suite-secret-0123',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const waiters: Array<{ pred: (e: Record<string, unknown>) => boolean; resolve: (e: Record<string, unknown>) => void }> = [];
  let stderr = '';
  let buffer = '';
  child.stdout!.on('data', (chunk) => {
    buffer += String(chunk);
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        entry = { msg: line };
      }
      logs.push(entry);
      for (const w of [...waiters]) {
        if (w.pred(entry)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(entry);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const waitForLog = (pred: (e: Record<string, unknown>) => boolean) => {
    const past = logs.find(pred);
    if (past) return Promise.resolve(past);
    return new Promise<Record<string, unknown>>((resolve) => waiters.push({ pred, resolve }));
  };
  const ready = Promise.race([
    waitForLog((e) => typeof e.msg === 'string' && e.msg.startsWith('Server listening at http://127.0.0.1')).then((e) =>
      String(e.msg).slice('Server listening at '.length),
    ),
    exited.then(({ code, signal }) => {
      throw new Error(`server exited before listening (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`);
    }),
  ]);
  ready.catch(() => undefined);
  return { child, exited, logs, ready, waitForLog };
}
