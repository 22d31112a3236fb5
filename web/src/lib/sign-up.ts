// What the sign-up form says about each field, in words a person
// understands: its own checks before sending, and the API's answers put next
// to the field they are about. Imports nothing, so server-side tests load it as is.

export type SignUpField = 'username' | 'email' | 'password';
export type SignUpValues = Record<SignUpField, string>;
export type SignUpProblems = Partial<Record<SignUpField, string>>;

export const MIN_PASSWORD = 15;
/** DESIGN: usernames are 3 to 30 of [A-Za-z0-9_]. */
const USERNAME = /^[A-Za-z0-9_]+$/;
/** Enough to catch a typo; the server has the last word. */
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export const MESSAGES = {
  usernameEmpty: 'Enter a username.',
  usernameFormat: 'Usernames use letters, digits and _ only.',
  usernameLength: 'Usernames have 3 to 30 characters.',
  usernameTaken: 'That username is taken.',
  emailEmpty: 'Enter your email address.',
  emailFormat: 'Enter an email address such as name@example.com.',
  emailTaken: 'That email already has an account.',
  passwordEmpty: 'Enter a password.',
  passwordShort: `The password needs at least ${MIN_PASSWORD} characters.`,
} as const;

/** The form's own checks: every field that is empty or malformed, all at once. */
export function signUpProblems(v: SignUpValues): SignUpProblems {
  const out: SignUpProblems = {};
  if (v.username === '') out.username = MESSAGES.usernameEmpty;
  else if (!USERNAME.test(v.username)) out.username = MESSAGES.usernameFormat;
  else if (v.username.length < 3 || v.username.length > 30) out.username = MESSAGES.usernameLength;
  if (v.email.trim() === '') out.email = MESSAGES.emailEmpty;
  else if (!EMAIL.test(v.email.trim())) out.email = MESSAGES.emailFormat;
  if (v.password === '') out.password = MESSAGES.passwordEmpty;
  else if (v.password.length < MIN_PASSWORD) out.password = MESSAGES.passwordShort;
  return out;
}

/** The API's 409 texts on /register (src/services/accounts.ts), each for its field. */
const TAKEN: Record<string, [SignUpField, string]> = {
  'Username already exists': ['username', MESSAGES.usernameTaken],
  'Email already registered': ['email', MESSAGES.emailTaken],
};

/** The API's refusal (its status and error text) as a field's problem, when it is about one field; null for anything else. */
export function registerErrorField(status: number, error: string | undefined): SignUpProblems | null {
  if (status !== 409) return null;
  const taken = TAKEN[error ?? ''];
  return taken ? { [taken[0]]: taken[1] } : null;
}
