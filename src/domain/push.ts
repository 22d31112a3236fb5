// Web Push rules as pure functions: which endpoints the service will call,
// which notice kinds a device may choose, and what a push carries.
// A subscription is a URL the service calls on its own, so only the
// browsers' push services are accepted (docs/push.md): never an arbitrary
// host, address, port, scheme or credentials in the URL.

/** Notice kinds a device may choose: the ones the chat and email channels carry for a user. */
export const PUSH_KINDS = ['bet_opened', 'bet_cancelled', 'bet_settled', 'bet_exit', 'price_alert', 'league_notice'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** Devices one account may register; a new one beyond it is refused. */
export const MAX_PUSH_DEVICES = 20;
export const MAX_ENDPOINT_LENGTH = 2048;

/**
 * The browsers' push services: Chrome and other Chromium browsers (FCM),
 * Firefox (Mozilla autopush), Safari (Apple), Edge (Windows push, one host per
 * region, hence the suffix entry starting with a dot).
 */
export const PUSH_SERVICE_HOSTS: readonly string[] = [
  'fcm.googleapis.com',
  'android.googleapis.com',
  'updates.push.services.mozilla.com',
  'web.push.apple.com',
  '.notify.windows.com',
];

function hostAllowed(host: string, hosts: readonly string[]): boolean {
  return hosts.some((h) => (h.startsWith('.') ? host.endsWith(h) && host.length > h.length : host === h));
}

export type EndpointCheck = { ok: true; endpoint: string } | { ok: false; reason: string };

/**
 * Whether the service may call this endpoint: https on the default port, on
 * one of the push services' hosts, without credentials or a fragment; or
 * exactly on one of the extra origins configured (PUSH_EXTRA_ORIGINS, for
 * tests' local push service). Answers the URL as it will be called.
 */
export function checkPushEndpoint(raw: string, extraOrigins: readonly string[] = [], hosts: readonly string[] = PUSH_SERVICE_HOSTS): EndpointCheck {
  if (raw.length > MAX_ENDPOINT_LENGTH) return { ok: false, reason: 'endpoint is too long' };
  // Whitespace and control characters would be silently dropped by the URL parser: refuse rather than guess.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: that is the point
  if (/[\s\u0000-\u001f\u007f\\]/.test(raw)) return { ok: false, reason: 'endpoint must be a plain https URL' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'endpoint must be a URL' };
  }
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? '';
  if (url.username !== '' || url.password !== '' || authority.includes('@')) {
    return { ok: false, reason: 'endpoint must not carry credentials' };
  }
  if (url.hash !== '' || raw.includes('#')) return { ok: false, reason: 'endpoint must not carry a fragment' };
  if (extraOrigins.includes(url.origin)) return { ok: true, endpoint: url.href };
  if (url.protocol !== 'https:') return { ok: false, reason: 'endpoint must be https' };
  if (url.port !== '') return { ok: false, reason: 'endpoint must use the default port' };
  const host = url.hostname;
  // The URL parser writes every IPv4 form (decimal, hex, octal) dotted and keeps IPv6 in brackets.
  if (host.startsWith('[') || /^[\d.]+$/.test(host) || /^0x/i.test(host)) {
    return { ok: false, reason: 'endpoint must be a push service, not an address' };
  }
  if (host.endsWith('.') || !hostAllowed(host, hosts)) return { ok: false, reason: "endpoint must be on a browser's push service" };
  return { ok: true, endpoint: url.href };
}

/** Normalises configured extra origins (`http://127.0.0.1:9000`) to URL origins; throws on anything else. */
export function parseExtraOrigins(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const u = new URL(s);
      if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.username || u.password || (u.pathname !== '/' && u.pathname !== '')) {
        throw new Error(`not an origin: ${s}`);
      }
      return u.origin;
    });
}

function base64urlBytes(s: string): number | null {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(s)) return null;
  return Buffer.from(s, 'base64url').length;
}

/** The subscription's keys as the browser gives them: an uncompressed P-256 point (65 bytes) and a 16-byte secret. */
export function checkPushKeys(p256dh: string, auth: string): string | null {
  if (base64urlBytes(p256dh) !== 65 || Buffer.from(p256dh, 'base64url')[0] !== 0x04)
    return 'keys.p256dh must be an uncompressed P-256 public key (base64url)';
  if (base64urlBytes(auth) !== 16) return 'keys.auth must be 16 bytes (base64url)';
  return null;
}

/** What the service worker receives: a title, the sentence, the page to open, and a tag so one bet's notices replace each other. */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  kind: string;
  tag: string;
}

const TITLES: Record<string, string> = {
  bet_opened: 'A trader you follow opened a bet',
  bet_cancelled: 'A bet was cancelled',
  bet_settled: 'Your bet was settled',
  league_notice: 'League',
};

/** The outbox row's text is the chat's: the sentence, then the address on the next line. */
export function pushPayload(row: { id: number; kind: string; text: string; bet_id: number | null }, webUrl: string): PushPayload {
  const [sentence = row.text, url = `${webUrl}notifications`] = row.text.split('\n');
  const link = url.startsWith(webUrl) ? url : `${webUrl}notifications`;
  return {
    title: TITLES[row.kind] ?? 'Paper Bets',
    body: sentence.slice(0, 500),
    url: link,
    kind: row.kind,
    tag: row.bet_id !== null ? `bet-${row.bet_id}` : `notice-${row.id}`,
  };
}

/** A VAPID subject must be a mailto: or https: URL: the public URL when it is https, else the sender's address. */
export function defaultVapidSubject(publicUrl: string, mailFrom: string): string {
  if (publicUrl.startsWith('https://')) return publicUrl;
  const address = /<([^<>]+)>$/.exec(mailFrom)?.[1] ?? mailFrom;
  return `mailto:${address}`;
}
