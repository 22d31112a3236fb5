// Step three of the assembly (src/app.ts): the background work, when WORKERS
// is on. Every periodic job (src/jobs/schedule.ts) runs under one job runner;
// a Telegram bot without a webhook also polls for updates.
import type { AppContext } from '../context.js';
import { TelegramTransport } from '../providers/chat/telegram.js';
import { handleTelegramUpdateAndAnswer } from '../services/chat.js';
import { JobRunner } from './job-runner.js';
import { periodicJobs } from './schedule.js';

export interface Workers {
  /** Stops polling and every job, waiting for the runs in progress to record what they did. */
  stop(): Promise<void>;
}

export async function startWorkers(ctx: AppContext): Promise<Workers> {
  if (!ctx.config.workers.enabled) return { stop: async () => undefined };
  const runner = new JobRunner({ log: ctx.log, metrics: ctx.metrics });
  for (const job of periodicJobs(ctx, ctx.log)) runner.add(job);
  runner.start();
  const { chatTransport } = ctx;
  const telegram = chatTransport instanceof TelegramTransport ? chatTransport : null;
  try {
    await telegram?.startReceiving((update) => handleTelegramUpdateAndAnswer(ctx, update));
  } catch (err) {
    await runner.stop();
    throw err;
  }
  return {
    stop: async () => {
      await telegram?.stopReceiving();
      await runner.stop();
    },
  };
}
