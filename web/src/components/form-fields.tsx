// The form rows the account pages share (log in, sign up, password reset,
// settings): an email address, a password, a new password typed twice, and
// the form's own error.
import type { ComponentProps, ReactNode } from 'react';
import { MESSAGES, MIN_PASSWORD } from '../lib/sign-up';
import { Field } from './field';

type FieldProps = ComponentProps<typeof Field>;

/** The length asked of a new password, counting what is typed. */
export const lengthHint = (length: number) => `At least ${MIN_PASSWORD} characters (${length}/${MIN_PASSWORD}).`;
export const PASSPHRASE_TIP = 'A passphrase of a few words works well.';

/** An email address, "Email" unless named otherwise; the browser offers the email keyboard and its saved addresses. */
export function EmailField({ label = 'Email', name = 'email', ...input }: Omit<FieldProps, 'label'> & { label?: string }) {
  return <Field label={label} type="email" name={name} autoComplete="email" required {...input} />;
}

/** A password, by default the current one (password managers fill it). */
export function PasswordField({ autoComplete = 'current-password', ...input }: FieldProps) {
  return <Field type="password" autoComplete={autoComplete} required {...input} />;
}

/**
 * A new password and the same again. Once the form was sent (`checked`), a
 * short password is said under the first, and a mismatch under the second.
 */
export function NewPasswordFields({
  value,
  onChange,
  repeat,
  onRepeat,
  checked,
  tip,
  error,
  mismatch,
}: {
  value: string;
  onChange: (value: string) => void;
  repeat: string;
  onRepeat: (value: string) => void;
  checked: boolean;
  /** Said after the length hint. */
  tip?: string;
  /** The server's word on the new password. */
  error?: string | null;
  mismatch: string;
}) {
  const short = value.length < MIN_PASSWORD;
  return (
    <>
      <PasswordField
        label="New password"
        name="new-password"
        autoComplete="new-password"
        minLength={MIN_PASSWORD}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        hint={tip ? `${lengthHint(value.length)} ${tip}` : lengthHint(value.length)}
        error={checked && short ? MESSAGES.passwordShort : (error ?? null)}
      />
      <PasswordField
        label="New password again"
        name="repeat-password"
        autoComplete="new-password"
        value={repeat}
        onChange={(e) => onRepeat(e.target.value)}
        error={checked && !short && repeat !== value ? mismatch : null}
      />
    </>
  );
}

/** What went wrong with the form as a whole, announced as it appears. */
export function FormError({ children }: { children: ReactNode }) {
  return (
    <p className="alert alert-error" role="alert">
      {children}
    </p>
  );
}
