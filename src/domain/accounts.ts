// Account rules with no I/O: usernames, emails, passwords, capacities.

export const USERNAME_PATTERN = /^[A-Za-z0-9_]{3,30}$/;
export const PASSWORD_MIN = 15;
export const PASSWORD_MAX = 256;

/** Usernames are unique without regard to case: this is the key they are unique on. */
export function usernameKey(username: string): string {
  return username.toLowerCase();
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
