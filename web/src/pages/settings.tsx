import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { api, ApiError, call, errorMessage } from '../api/client';
import { useInvalidate, useMe, useMyEmail, useNoticeSettings } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { EmailField, FormError, NewPasswordFields, PasswordField } from '../components/form-fields';
import { ErrorState, Loading } from '../components/status';
import { currentSubscription, PUSH_KIND_LABELS, type PushKind, pushSupported, subscribeThisDevice } from '../lib/push';
import { MIN_PASSWORD } from '../lib/sign-up';

export function SettingsPage() {
  const me = useMe();
  if (!me.data) return <Loading />;
  return (
    <>
      <h1>Settings</h1>
      <p className="muted">
        Signed in as <strong>{me.data.username}</strong> ({me.data.email}).
      </p>
      <EmailCard />
      <NoticeSettingsCard />
      <PushCard />
      <ExportCard />
      <PasswordCard />
      <DeleteCard />
    </>
  );
}

/** The address, whether it is verified (a new link on demand), and a change confirmed from the new address. */
function EmailCard() {
  const invalidate = useInvalidate();
  const state = useMyEmail();
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const resend = useMutation({ mutationFn: () => call(api.POST('/email/verify/resend')) });
  const change = useMutation({
    mutationFn: (sent: { email: string; password: string }) =>
      call(api.POST('/me/email', { body: { new_email: sent.email, password: sent.password } })),
    onSuccess: () => {
      setPassword('');
      setTouched(false);
      invalidate(queryKeys.myEmail);
    },
  });
  // The server's word is on what was sent: once a field is edited, its error no longer applies.
  const errors = splitError(change.error, 'password', 'email', {
    password: change.variables?.password === password,
    email: change.variables?.email === newEmail.trim(),
  });
  const conflict =
    change.error instanceof ApiError && change.error.status === 409 && change.variables?.email === newEmail.trim()
      ? 'That email already has an account.'
      : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (newEmail.trim() !== '' && password !== '') change.mutate({ email: newEmail.trim(), password });
  };
  return (
    <section className="card" aria-labelledby="email-heading">
      <h2 id="email-heading">Email address</h2>
      {state.isPending && <Loading />}
      {state.isError && <ErrorState error={state.error} retry={() => void state.refetch()} />}
      {state.data && (
        <>
          <p>
            <strong>{state.data.email}</strong>{' '}
            {state.data.email_verified ? (
              <span className="badge badge-ok" data-testid="email-verified">
                Verified
              </span>
            ) : (
              <span className="badge badge-info" data-testid="email-unverified">
                Not verified
              </span>
            )}
          </p>
          {!state.data.email_verified && (
            <div className="actions">
              <p className="muted">Confirm your address with the link we emailed you to get notices by email and to reset a forgotten password.</p>
              <button type="button" className="btn" onClick={() => resend.mutate()} disabled={resend.isPending || resend.isSuccess}>
                Send the link again
              </button>
            </div>
          )}
          {resend.isSuccess && (
            <p className="alert alert-ok" role="status">
              A new link is on its way to {state.data.email}.
            </p>
          )}
          {resend.isError && <FormError>{errorMessage(resend.error)}</FormError>}
          {state.data.pending_email && (
            <p className="alert alert-info" role="status" data-testid="email-pending">
              Waiting for you to confirm {state.data.pending_email} with the link sent there.
            </p>
          )}
        </>
      )}
      <form onSubmit={submit} noValidate className="narrow-form" aria-label="Change email address">
        <EmailField
          label="New email address"
          name="new-email"
          value={newEmail}
          onChange={(e) => setNewEmail(e.target.value)}
          error={touched && newEmail.trim() === '' ? 'Enter the new address.' : (conflict ?? errors.email)}
        />
        <PasswordField
          label="Password"
          name="email-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={touched && password === '' ? 'Enter your password.' : errors.password}
        />
        {!conflict && errors.form && <FormError>{errors.form}</FormError>}
        {change.isSuccess && (
          <p className="alert alert-ok" role="status">
            Confirm the change with the link sent to the new address. Your current address was told.
          </p>
        )}
        <button type="submit" className="btn" disabled={change.isPending}>
          {change.isPending ? 'Sending…' : 'Change address'}
        </button>
      </form>
    </section>
  );
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const zones = (): string[] => {
  const list = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return list.includes('UTC') ? list : ['UTC', ...list];
};

/** Followed traders' openings and cancellations by email: off, each, or a daily digest at an hour of the user's day. */
function NoticeSettingsCard() {
  const queryClient = useQueryClient();
  const email = useMyEmail();
  const settings = useNoticeSettings();
  const [draft, setDraft] = useState<null | { email_notices: 'off' | 'each' | 'digest'; digest_hour: number; time_zone: string }>(null);
  const save = useMutation({
    mutationFn: (body: { email_notices: 'off' | 'each' | 'digest'; digest_hour: number; time_zone: string }) =>
      call(api.PUT('/me/notice-settings', { body })),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.noticeSettings, saved);
      setDraft(null);
    },
  });
  const verified = email.data?.email_verified === true;
  const current = draft ?? settings.data ?? null;
  const edit = (patch: Partial<NonNullable<typeof draft>>) => {
    if (!current) return;
    // A first choice of the digest suggests the browser's own time zone.
    const zone =
      current.email_notices !== 'digest' && patch.email_notices === 'digest' && current.time_zone === 'UTC' ? browserZone() : current.time_zone;
    setDraft({ ...current, time_zone: zone, ...patch });
  };
  return (
    <section className="card" aria-labelledby="notice-settings-heading">
      <h2 id="notice-settings-heading">Notices by email</h2>
      <p className="muted">
        When a trader you follow opens or cancels a bet; with each notice, also when one of your price alerts fires. Your notices are always listed on
        the Notices page.
      </p>
      {settings.isPending && <Loading />}
      {settings.isError && <ErrorState error={settings.error} retry={() => void settings.refetch()} />}
      {current && (
        <form
          className="narrow-form"
          aria-label="Notices by email"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(current);
          }}
        >
          {!verified && email.data && <p className="alert alert-info">Verify your email address to get notices by email.</p>}
          <fieldset className="chips">
            <legend className="sr-only">Email notices</legend>
            {(
              [
                ['off', 'No emails'],
                ['each', 'Each notice'],
                ['digest', 'A daily digest'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="radio">
                <input
                  type="radio"
                  name="email-notices"
                  value={value}
                  checked={current.email_notices === value}
                  disabled={value !== 'off' && !verified}
                  onChange={() => edit({ email_notices: value })}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
          {current.email_notices === 'digest' && (
            <>
              <div className="field">
                <label htmlFor="digest-hour">Send it at</label>
                <select id="digest-hour" value={current.digest_hour} onChange={(e) => edit({ digest_hour: Number(e.target.value) })}>
                  {HOURS.map((h) => (
                    <option key={h} value={h}>
                      {String(h).padStart(2, '0')}:00
                    </option>
                  ))}
                </select>
              </div>
              <div className="field">
                <label htmlFor="digest-zone">Time zone</label>
                <select id="digest-zone" value={current.time_zone} onChange={(e) => edit({ time_zone: e.target.value })}>
                  {(zones().includes(current.time_zone) ? zones() : [current.time_zone, ...zones()]).map((z) => (
                    <option key={z} value={z}>
                      {z}
                    </option>
                  ))}
                </select>
              </div>
            </>
          )}
          {save.isError && <FormError>{errorMessage(save.error)}</FormError>}
          {save.isSuccess && draft === null && (
            <p className="alert alert-ok" role="status" data-testid="notice-settings-saved">
              Saved.
            </p>
          )}
          <button type="submit" className="btn btn-primary" disabled={save.isPending || draft === null}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
        </form>
      )}
    </section>
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

/**
 * Where an account-control error belongs: a wrong password is the password
 * field's, the rest the other field's or the form's. `current` says, per
 * field, whether it still holds what was sent: an error about a value the user
 * has since corrected is not shown (it would say "incorrect" of a right one).
 */
function splitError(err: unknown, passwordField: string, otherField: string | null, current: Record<string, boolean> = {}): Record<string, string> {
  if (!err) return {};
  const message = errorMessage(err);
  const field =
    err instanceof ApiError && err.status === 403 ? passwordField : err instanceof ApiError && err.status === 400 && otherField ? otherField : null;
  if (field === null) return { form: message };
  return current[field] === false ? {} : { [field]: message };
}

function PasswordCard() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [touched, setTouched] = useState(false);
  const change = useMutation({
    mutationFn: (sent: { current: string; next: string }) =>
      call(api.POST('/me/password', { body: { current_password: sent.current, new_password: sent.next } })),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setRepeat('');
      setTouched(false);
    },
  });
  const short = next.length < MIN_PASSWORD;
  const differs = repeat !== next;
  const errors = splitError(change.error, 'current', 'next', {
    current: change.variables?.current === current,
    next: change.variables?.next === next,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (short || differs || current === '') return;
    change.mutate({ current, next });
  };
  return (
    <section className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <form onSubmit={submit} noValidate className="narrow-form">
        <PasswordField
          label="Current password"
          name="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={touched && current === '' ? 'Enter your current password.' : errors.current}
        />
        <NewPasswordFields
          value={next}
          onChange={setNext}
          repeat={repeat}
          onRepeat={setRepeat}
          checked={touched}
          error={errors.next}
          mismatch="The two new passwords differ."
        />
        {errors.form && <FormError>{errors.form}</FormError>}
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
    mutationFn: (sent: string) => call(api.DELETE('/me', { body: { password: sent } })),
    onSuccess: () => {
      // Leave the page that needs a session first, then forget everything of the account.
      navigate('/login?deleted=1', { replace: true });
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, null);
    },
  });
  const errors = splitError(remove.error, 'password', null, { password: remove.variables === password });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (password !== '') remove.mutate(password);
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
          <PasswordField
            label="Password"
            name="delete-password"
            autoFocus
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password}
          />
          {errors.form && <FormError>{errors.form}</FormError>}
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

/**
 * Push notices on this device: the browser's subscription, sent to the
 * service with the kinds chosen here. Each device chooses its own kinds;
 * the other devices are listed so one can be removed from anywhere.
 */
function PushCard() {
  const queryClient = useQueryClient();
  const devices = useQuery({ queryKey: queryKeys.pushDevices, queryFn: () => call(api.GET('/push/subscriptions')) });
  const [endpoint, setEndpoint] = useState<string | null | undefined>(undefined);
  const [draft, setDraft] = useState<PushKind[] | null>(null);
  const supported = pushSupported();
  useEffect(() => {
    if (!supported) return;
    let live = true;
    void currentSubscription().then(
      (s) => live && setEndpoint(s?.endpoint ?? null),
      () => live && setEndpoint(null),
    );
    return () => {
      live = false;
    };
  }, [supported]);
  const here = devices.data?.devices.find((d) => d.endpoint === endpoint) ?? null;
  const others = devices.data?.devices.filter((d) => d !== here) ?? [];
  const kinds = draft ?? here?.kinds ?? PUSH_KIND_LABELS.map(([k]) => k);
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.pushDevices });
  const save = useMutation({
    mutationFn: async (chosen: PushKind[]) => {
      const { public_key } = await call(api.GET('/push/key'));
      const sub = await subscribeThisDevice(public_key);
      setEndpoint(sub.endpoint ?? null);
      return call(
        api.POST('/push/subscriptions', {
          body: { endpoint: sub.endpoint ?? '', keys: { p256dh: sub.keys?.p256dh ?? '', auth: sub.keys?.auth ?? '' }, kinds: chosen },
        }),
      );
    },
    onSuccess: () => {
      setDraft(null);
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: async (id: number) => {
      await call(api.DELETE('/push/subscriptions/{id}', { params: { path: { id } } }));
      if (here && id === here.id) {
        const sub = await currentSubscription();
        await sub?.unsubscribe();
        setEndpoint(null);
      }
    },
    onSuccess: () => void refresh(),
  });
  const toggle = (kind: PushKind) => setDraft(kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind]);
  return (
    <section className="card" aria-labelledby="push-heading">
      <h2 id="push-heading">Notices on this device</h2>
      <p className="muted">Push notices reach this phone or computer even when the app is closed. Choose what each device gets.</p>
      {!supported && (
        <p className="alert alert-info">This browser cannot receive push notices. On an iPhone, add the app to the home screen first.</p>
      )}
      {devices.isPending && <Loading />}
      {devices.isError && <ErrorState error={devices.error} retry={() => void devices.refetch()} />}
      {supported && devices.data && (
        <form
          className="narrow-form"
          aria-label="Notices on this device"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(kinds);
          }}
        >
          <p data-testid="push-state">{here ? 'This device receives push notices.' : 'Push notices are off on this device.'}</p>
          <fieldset className="push-kinds">
            <legend className="sr-only">Which notices</legend>
            {PUSH_KIND_LABELS.map(([kind, label]) => (
              <label key={kind} className="push-kind">
                <input type="checkbox" name="push-kinds" value={kind} checked={kinds.includes(kind)} onChange={() => toggle(kind)} /> {label}
              </label>
            ))}
          </fieldset>
          {save.error && <FormError>{errorMessage(save.error)}</FormError>}
          <div className="actions">
            <button type="submit" className="btn btn-primary" disabled={save.isPending}>
              {here ? 'Save for this device' : 'Turn on for this device'}
            </button>
            {here && (
              <button type="button" className="btn" disabled={remove.isPending} onClick={() => remove.mutate(here.id)}>
                Turn off on this device
              </button>
            )}
          </div>
        </form>
      )}
      {others.length > 0 && (
        <>
          <h3>Other devices</h3>
          <ul className="list" data-testid="push-devices">
            {others.map((d) => (
              <li key={d.id} className="list-row">
                <span>
                  {new URL(d.endpoint).hostname}, since {new Date(d.created_at).toLocaleDateString()}
                </span>
                <button type="button" className="btn" disabled={remove.isPending} onClick={() => remove.mutate(d.id)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
