// The auth_token cookie: an HS256 JWT naming a server-side session row, so a
// logout (deleting the row) revokes every copy of the cookie at once.
import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';

export interface TokenClaims {
  userId: number;
  sessionId: string;
}

/** Verified tokens kept so a session's every request need not redo the HMAC. */
const VERIFIED_CACHE_SIZE = 10_000;

interface Verified extends TokenClaims {
  expMs: number;
}

export class SessionTokens {
  private readonly key: Uint8Array;
  // Keyed by the whole token: any change to it is another key, so only
  // signatures already checked are skipped. Expiry is checked on every use
  // against the caller's clock (tests move a fake one); the entry's ttl only
  // frees the memory of a token nobody presents again. ttlResolution 0: no
  // timer per lookup to debounce the clock.
  private readonly verified = new LRUCache<string, Verified>({ max: VERIFIED_CACHE_SIZE, ttlResolution: 0 });

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  static newSessionId(): string {
    return randomBytes(24).toString('base64url');
  }

  static newSecret(): string {
    return randomBytes(48).toString('base64url');
  }

  sign(claims: TokenClaims, nowMs: number, ttlSeconds: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(this.key);
  }

  /** The claims of a valid token, or null for anything tampered, expired, or not HS256. */
  async verify(token: string, nowMs: number): Promise<TokenClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      // jose's rule: expired from the second exp names on.
      if (nowMs < known.expMs) return { userId: known.userId, sessionId: known.sessionId };
      this.verified.delete(token);
      return null;
    }
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(nowMs),
      });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || userId <= 0 || typeof payload.sid !== 'string') return null;
      if (typeof payload.exp !== 'number') return null;
      const expMs = payload.exp * 1000;
      this.verified.set(token, { userId, sessionId: payload.sid, expMs }, { ttl: Math.max(1, Math.ceil(expMs - nowMs)) });
      return { userId, sessionId: payload.sid };
    } catch {
      return null;
    }
  }
}
