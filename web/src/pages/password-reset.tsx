import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, call, errorMessage } from '../api/client';
import { EmailField, FormError, NewPasswordFields, PASSPHRASE_TIP } from '../components/form-fields';
import { MESSAGES, MIN_PASSWORD } from '../lib/sign-up';

/** "Forgot password?": asks for a reset link; the answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [touched, setTouched] = useState(false);
  const forgot = useMutation({ mutationFn: () => call(api.POST('/password/forgot', { body: { email: email.trim() } })) });
  const empty = email.trim() === '';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!empty) forgot.mutate();
  };
  return (
    <div className="auth-card">
      <h1>Reset your password</h1>
      {forgot.isSuccess ? (
        <p className="alert alert-ok" role="status" data-testid="forgot-sent">
          If an account has this address, an email with a link to choose a new password is on its way. The link works once, for 30 minutes.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <p className="muted">Enter the email address of your account. We send it a link to choose a new password.</p>
          <EmailField value={email} onChange={(e) => setEmail(e.target.value)} error={touched && empty ? MESSAGES.emailEmpty : null} />
          {forgot.isError && <FormError>{errorMessage(forgot.error)}</FormError>}
          <button type="submit" className="btn btn-primary" disabled={forgot.isPending}>
            {forgot.isPending ? 'Sending…' : 'Send the link'}
          </button>
        </form>
      )}
      <p className="muted">
        <Link to="/login">Back to log in</Link>
      </p>
    </div>
  );
}

/** Where the emailed reset link lands: a new password, twice. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const reset = useMutation({ mutationFn: () => call(api.POST('/password/reset', { body: { token, new_password: next } })) });
  const short = next.length < MIN_PASSWORD;
  const differs = repeat !== next;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!short && !differs) reset.mutate();
  };
  if (reset.isSuccess) {
    return (
      <div className="auth-card">
        <h1>Password changed</h1>
        <p className="alert alert-ok" role="status" data-testid="password-reset">
          Your password is changed, and every session of your account was signed out.
        </p>
        <p>
          <Link to="/login" className="btn btn-primary">
            Log in
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="auth-card">
      <h1>Choose a new password</h1>
      {token === '' ? (
        <p className="alert alert-error" role="alert">
          This page needs the link from the email. <Link to="/forgot-password">Ask for a new link</Link>.
        </p>
      ) : (
        <form onSubmit={submit} noValidate>
          <NewPasswordFields
            value={next}
            onChange={setNext}
            repeat={repeat}
            onRepeat={setRepeat}
            checked={touched}
            tip={PASSPHRASE_TIP}
            mismatch="The two passwords differ."
          />
          {reset.isError && (
            <FormError>
              {errorMessage(reset.error)}. <Link to="/forgot-password">Ask for a new link</Link>.
            </FormError>
          )}
          <button type="submit" className="btn btn-primary" disabled={reset.isPending}>
            {reset.isPending ? 'Saving…' : 'Set the new password'}
          </button>
        </form>
      )}
    </div>
  );
}
