// Web Push devices: a signed-in user registers this browser's subscription
// (after checking its endpoint is a browser's push service), chooses the
// notice kinds it receives, lists and removes devices. Delivery is the push
// channel of the outbox (src/services/push-delivery.ts).
import type { AppContext } from '../context.js';
import { badRequest, limitReached, notFound } from '../errors.js';
import { checkPushEndpoint, checkPushKeys, MAX_PUSH_DEVICES, PUSH_KINDS } from '../domain/push.js';
import {
  countDevices,
  deleteDevice,
  findDeviceByEndpoint,
  insertDevice,
  listDevices,
  type PushDevice as DeviceRow,
  updateDevice,
} from '../repositories/push.js';
import type { PushDevice, PushSubscriptionRequest } from '../schemas/push.js';

type Deps = Pick<AppContext, 'database' | 'db' | 'clock' | 'config'>;

function toDevice(d: DeviceRow): PushDevice {
  return {
    id: d.id,
    endpoint: d.endpoint,
    kinds: d.kinds,
    created_at: new Date(Number(d.created_at)).toISOString(),
    updated_at: new Date(Number(d.updated_at)).toISOString(),
  };
}

/**
 * Registers (or updates) this device. The same endpoint again is the same
 * device: its keys and kinds are replaced. An endpoint another account had
 * registered moves to the caller (the browser signed in as someone else:
 * only who holds the endpoint and its keys can present them), with what was
 * queued for the former owner dropped.
 */
export async function subscribePush(ctx: Deps, userId: number, body: PushSubscriptionRequest): Promise<{ created: boolean; device: PushDevice }> {
  const checked = checkPushEndpoint(body.endpoint, ctx.config.push.extraOrigins);
  if (!checked.ok) throw badRequest(checked.reason);
  const keyProblem = checkPushKeys(body.keys.p256dh, body.keys.auth);
  if (keyProblem) throw badRequest(keyProblem);
  const kinds = [...(body.kinds ?? PUSH_KINDS)].sort();
  const now = ctx.clock.now();
  const { endpoint } = checked;
  const keys = { p256dh: body.keys.p256dh.replace(/=+$/, ''), auth: body.keys.auth.replace(/=+$/, '') };
  return ctx.database.transaction(async (trx) => {
    const existing = await findDeviceByEndpoint(trx, endpoint);
    if (existing && existing.user_id === userId) {
      await updateDevice(trx, existing.id, { ...keys, kinds }, now);
      return { created: false, device: toDevice({ ...existing, ...keys, kinds, updated_at: now }) };
    }
    if (existing) await deleteDevice(trx, existing.id, existing.user_id, 'device signed in to another account');
    if ((await countDevices(trx, userId)) >= MAX_PUSH_DEVICES) {
      throw limitReached(`At most ${MAX_PUSH_DEVICES} devices may receive push notices; remove one first`, MAX_PUSH_DEVICES);
    }
    const id = await insertDevice(trx, { userId, endpoint, ...keys, kinds }, now);
    return { created: true, device: toDevice({ id, user_id: userId, endpoint, ...keys, kinds, created_at: now, updated_at: now }) };
  });
}

export async function listPushDevices(ctx: Deps, userId: number): Promise<{ devices: PushDevice[] }> {
  return { devices: (await listDevices(ctx.db, userId)).map(toDevice) };
}

/** Removes one of the caller's devices (404 for another's, so ids of others' devices are not confirmed). */
export async function unsubscribePush(ctx: Deps, userId: number, id: number): Promise<void> {
  const removed = await ctx.database.transaction((trx) => deleteDevice(trx, id, userId, 'device removed'));
  if (!removed) throw notFound('Device not found');
}
