// Account rules with no I/O: usernames, emails, passwords, capacities.

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{3,30}$/;
export const PASSWORD_MIN = 15;
export const PASSWORD_MAX = 256;

/** Usernames are unique without regard to case: this is the key they are unique on. */
export function usernameKey(username: string): string {
  return username.toLowerCase();
}

/**
 * Why a username is refused beyond its schema pattern, or null. Names that
 * start with "deleted" (any case) are reserved, so no account can look like a
 * deleted one; accounts that took such a name before the rule keep it.
 */
export function usernameProblem(username: string): string | null {
  if (/^deleted/i.test(username)) return 'Usernames starting with "deleted" are reserved; choose another';
  return null;
}

/**
 * What a deleted account's username and email become. The ':' is outside the
 * username alphabet and makes the address fail the email format (its domain is
 * under the reserved .invalid TLD too), so registration can never produce
 * either value and no account, taken before or after, can block a deletion.
 * Deletion itself is the users.deleted_at flag, never these values.
 */
export function deletedIdentity(userId: number): { username: string; email: string } {
  return { username: `deleted:${userId}`, email: `deleted:${userId}@deleted.invalid` };
}

/** Emails are compared lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The common-passwords list (one a line, `#` comments) as the set passwordProblem checks against. */
export function commonPasswordSet(text: string): ReadonlySet<string> {
  return new Set(text.split('\n').filter((line) => line !== '' && !line.startsWith('#')));
}

/**
 * Why a password is refused, or null when it is acceptable. Compared exactly
 * as sent; one on the `common` list is refused, lower-cased or not.
 */
export function passwordProblem(password: string, common: ReadonlySet<string>): string | null {
  if (password.length < PASSWORD_MIN) return `Password must be at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `Password must be at most ${PASSWORD_MAX} characters`;
  if (common.has(password) || common.has(password.toLowerCase())) {
    return 'Password is too common; choose another';
  }
  return null;
}

export interface Capacities {
  bet_capacity: number;
  follow_capacity: number;
}

/** A user's capacities: the configured base plus what their plan adds. */
export function capacitiesOf(base: { baseBets: number; baseFollows: number }, extras: { extra_bets: number; extra_slots: number }): Capacities {
  return { bet_capacity: base.baseBets + extras.extra_bets, follow_capacity: base.baseFollows + extras.extra_slots };
}
