// This browser's Web Push subscription (docs/push.md): the service worker
// registered by main.tsx holds it; the service learns it through
// POST /push/subscriptions with the notice kinds chosen for this device.

export const PUSH_KIND_LABELS = [
  ['bet_opened', 'A trader you follow opens a bet'],
  ['bet_cancelled', 'A trader you follow cancels a bet'],
  ['bet_settled', 'Your own bet is settled'],
  ['bet_exit', 'Your stop-loss or take-profit closes a bet'],
  ['price_alert', 'One of your price alerts fires'],
  ['league_notice', 'Your leagues: start, daily standing, result'],
] as const;
export type PushKind = (typeof PUSH_KIND_LABELS)[number][0];

/** Whether this browser can receive push notices at all (an iPhone only once the app is added to the home screen). */
export function pushSupported(): boolean {
  return (
    typeof navigator !== 'undefined' &&
    'serviceWorker' in navigator &&
    typeof window !== 'undefined' &&
    'PushManager' in window &&
    'Notification' in window
  );
}

/** The VAPID key as PushManager.subscribe takes it. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(b64);
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** The app's service worker, registered here if main.tsx has not (the dev server does not). */
async function registration(): Promise<ServiceWorkerRegistration> {
  if (!(await navigator.serviceWorker.getRegistration())) await navigator.serviceWorker.register(new URL('sw.js', document.baseURI));
  return navigator.serviceWorker.ready;
}

/** This browser's current subscription, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const reg = await navigator.serviceWorker.getRegistration();
  return reg ? reg.pushManager.getSubscription() : null;
}

/** Asks for permission (once) and subscribes this browser; the JSON to send to the service. */
export async function subscribeThisDevice(publicKey: string): Promise<PushSubscriptionJSON> {
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site: allow them in the browser’s site settings.');
  const reg = await registration();
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  return sub.toJSON();
}
