import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { api, ApiError, call, errorMessage } from '../api/client';
import { Field } from '../components/field';
import { Loading } from '../components/status';
import { meKey, useMe } from '../lib/auth';
import { MIN_PASSWORD } from './auth';

export function SettingsPage() {
  const me = useMe();
  if (!me.data) return <Loading />;
  return (
    <>
      <h1>Settings</h1>
      <p className="muted">
        Signed in as <strong>{me.data.username}</strong> ({me.data.email}).
      </p>
      <ExportCard />
      <PasswordCard />
      <DeleteCard />
    </>
  );
}

function ExportCard() {
  return (
    <section className="card" aria-labelledby="export-heading">
      <h2 id="export-heading">Your bet history</h2>
      <p>
        Download every bet you ever opened, oldest first: ticker, direction, status, entry and exit prices, gain, target date, and when it was opened
        and closed.
      </p>
      <div className="actions">
        <a className="btn" href="/me/export?format=csv" download>
          Download CSV
        </a>
        <a className="btn" href="/me/export?format=json" download>
          Download JSON
        </a>
      </div>
    </section>
  );
}

/** Where an account-control error belongs: a wrong password is the password field's, the rest the other field's or the form's. */
function splitError(err: unknown, passwordField: string, otherField: string | null): Record<string, string> {
  if (!err) return {};
  const message = errorMessage(err);
  if (err instanceof ApiError && err.status === 403) return { [passwordField]: message };
  if (err instanceof ApiError && err.status === 400 && otherField) return { [otherField]: message };
  return { form: message };
}

function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const change = useMutation({
    mutationFn: () => call(api.POST('/me/password', { body: { current_password: current, new_password: next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setRepeat('');
      setTouched(false);
    },
  });
  const short = next.length < MIN_PASSWORD;
  const differs = repeat !== next;
  const errors = splitError(change.error, 'current', 'next');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (short || differs || current === '') return;
    change.mutate();
  };
  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <form onSubmit={submit} noValidate className="narrow-form">
        <Field
          label="Current password"
          type="password"
          name="current-password"
          autoComplete="current-password"
          required
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={touched && current === '' ? 'Enter your current password.' : errors.current}
        />
        <Field
          label="New password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD}
          value={next}
          onChange={(e) => setNext(e.target.value)}
          hint={`At least ${MIN_PASSWORD} characters (${next.length}/${MIN_PASSWORD}).`}
          error={touched && short ? `The password needs at least ${MIN_PASSWORD} characters.` : errors.next}
        />
        <Field
          label="New password again"
          type="password"
          name="repeat-password"
          autoComplete="new-password"
          required
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          error={touched && !short && differs ? 'The two new passwords differ.' : null}
        />
        {errors.form && (
          <p className="alert alert-error" role="alert">
            {errors.form}
          </p>
        )}
        {change.isSuccess && (
          <p className="alert alert-ok" role="status" data-testid="password-changed">
            Password changed. Every other session was signed out; you stay signed in here.
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}

function DeleteCard() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const [password, setPassword] = useState('');
  const remove = useMutation({
    mutationFn: () => call(api.DELETE('/me', { body: { password } })),
    onSuccess: () => {
      // Leave the page that needs a session first, then forget everything of the account.
      navigate('/login?deleted=1', { replace: true });
      queryClient.clear();
      queryClient.setQueryData(meKey, null);
    },
  });
  const errors = splitError(remove.error, 'password', null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password !== '') remove.mutate();
  };
  return (
    <section className="card card-danger" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>
        Your name, email, password, follows and plan go; you are signed out everywhere. Your bets stay in the public verifiable record under an
        anonymous id, since the record cannot be rewritten. This cannot be undone.
      </p>
      {!confirming ? (
        <button type="button" className="btn btn-danger" onClick={() => setConfirming(true)}>
          Delete my account…
        </button>
      ) : (
        <form onSubmit={submit} noValidate className="narrow-form" aria-label="Confirm account deletion">
          <p className="alert alert-warn" role="alert">
            Enter your password to confirm. Download your history first if you want to keep it.
          </p>
          <Field
            label="Password"
            type="password"
            name="delete-password"
            autoComplete="current-password"
            required
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password}
          />
          {errors.form && (
            <p className="alert alert-error" role="alert">
              {errors.form}
            </p>
          )}
          <div className="actions">
            <button type="submit" className="btn btn-danger" disabled={remove.isPending || password === ''}>
              {remove.isPending ? 'Deleting…' : 'Delete my account permanently'}
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => {
                setConfirming(false);
                setPassword('');
                remove.reset();
              }}
            >
              Keep my account
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
