// A local stand-in for a browser's push service (as FakeTelegram and
// FakeStripe stand in for theirs): it makes subscriptions as a browser would
// (a P-256 key pair and an auth secret per device), and for every message
// posted to one it checks the VAPID authorization (RFC 8292: an ES256 JWT
// signed by the key in `k`, for this origin, not expired) and decrypts the
// body (RFC 8291, aes128gcm). Messages that fail a check are answered 4xx and
// recorded as refused; a test can script other answers (410, 500, 429).
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushMessage {
  device: string;
  payload: Record<string, unknown>;
  ttl: number;
  urgency: string | undefined;
  /** The VAPID JWT's claims and the public key that signed it. */
  jwt: { aud: string; exp: number; sub: string };
  vapidKey: string;
}

interface Device {
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
}

const b64u = (b: Buffer) => b.toString('base64url');

/** The VAPID key in `k` as a KeyObject (an uncompressed P-256 point). */
function vapidPublicKey(raw: Buffer) {
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) }, format: 'jwk' });
}

/** RFC 8291 section 3 and RFC 8188: one aes128gcm record, decrypted with the device's private key and auth secret. */
export function decryptAes128gcm(body: Buffer, device: Device): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (idlen !== 65 || rs < 18 || ciphertext.length > rs) throw new Error('bad aes128gcm header');
  const uaPublic = device.ecdh.getPublicKey();
  const ecdhSecret = device.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, device.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('bad padding delimiter');
  return padded.subarray(0, end);
}

export class FakePushService {
  readonly messages: PushMessage[] = [];
  readonly refused: Array<{ device: string; why: string }> = [];
  private readonly devices = new Map<string, Device>();
  /** Scripted answers per device, used in order before the normal 201. */
  private readonly script = new Map<string, number[]>();
  private server: http.Server | null = null;
  origin = '';
  /** The VAPID public key the messages must be signed with, when set (base64url). */
  expectedKey: string | null = null;
  /** Delay before each answer (a notice in flight while something changes). */
  delayMs = 0;
  /** Told when a message arrives, before the delay. */
  onMessage: (() => void) | null = null;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.onMessage?.();
        setTimeout(() => this.answer(req, Buffer.concat(chunks), res), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** A new device's subscription, as PushSubscription.toJSON() gives it. */
  subscribe(): FakeSubscription {
    const id = randomBytes(12).toString('hex');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const device = { ecdh, auth: randomBytes(16) };
    this.devices.set(id, device);
    return { endpoint: `${this.origin}/push/${id}`, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(device.auth) } };
  }

  /** The next answers to a device (e.g. [500], [410]). */
  answerWith(endpoint: string, ...statuses: number[]): void {
    this.script.set(this.deviceId(endpoint), statuses);
  }

  deviceId(endpoint: string): string {
    return endpoint.slice(endpoint.lastIndexOf('/') + 1);
  }

  messagesTo(endpoint: string): PushMessage[] {
    const id = this.deviceId(endpoint);
    return this.messages.filter((m) => m.device === id);
  }

  /** Answers a refusal; false, so `return this.refuse(…)` reads as "not accepted". */
  private refuse(res: http.ServerResponse, device: string, status: number, why: string): false {
    this.refused.push({ device, why });
    res.writeHead(status, { 'content-type': 'text/plain' }).end(why);
    return false;
  }

  /** Whether the message was accepted and recorded. */
  private answer(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): boolean {
    const m = /^\/push\/([0-9a-f]+)$/.exec(req.url ?? '');
    const id = m?.[1] ?? '';
    const device = this.devices.get(id);
    if (req.method !== 'POST' || !device) return this.refuse(res, id, 404, 'no such subscription');
    const scripted = this.script.get(id);
    if (scripted && scripted.length > 0) {
      const status = scripted.shift()!;
      res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {}).end();
      return false;
    }
    // RFC 8292: Authorization: vapid t=<JWT>, k=<public key>.
    const auth = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(req.headers.authorization ?? '');
    if (!auth) return this.refuse(res, id, 401, 'no vapid authorization');
    const [, jwt, k] = auth as unknown as [string, string, string];
    if (this.expectedKey !== null && k !== this.expectedKey) return this.refuse(res, id, 403, 'signed by another key');
    const [head, claims, signature] = jwt.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(head, 'base64url').toString()) as { alg?: string; typ?: string };
    if (header.alg !== 'ES256') return this.refuse(res, id, 401, 'not ES256');
    const ok = verify(
      'sha256',
      Buffer.from(`${head}.${claims}`),
      { key: vapidPublicKey(Buffer.from(k, 'base64url')), dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!ok) return this.refuse(res, id, 403, 'bad vapid signature');
    const c = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
    const now = Math.floor(Date.now() / 1000);
    if (c.aud !== this.origin) return this.refuse(res, id, 403, `audience ${c.aud}`);
    if (!(c.exp > now && c.exp <= now + 24 * 3600)) return this.refuse(res, id, 403, 'expiry out of range');
    if (!/^(mailto:|https:)/.test(c.sub ?? '')) return this.refuse(res, id, 403, 'bad subject');
    if (req.headers['content-encoding'] !== 'aes128gcm') return this.refuse(res, id, 415, 'not aes128gcm');
    const ttl = Number(req.headers.ttl);
    if (!Number.isInteger(ttl) || ttl < 0) return this.refuse(res, id, 400, 'no TTL');
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(decryptAes128gcm(body, device).toString('utf8')) as Record<string, unknown>;
    } catch (err) {
      return this.refuse(res, id, 400, `cannot decrypt: ${(err as Error).message}`);
    }
    const urgency = req.headers.urgency as string | undefined;
    this.messages.push({ device: id, payload, ttl, urgency, jwt: c, vapidKey: k });
    res.writeHead(201, { location: `${this.origin}/message/${randomBytes(6).toString('hex')}` }).end();
    return true;
  }
}
