import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError, api, call } from '../api/client';
import { useMe } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { Field } from '../components/field';
import { signedUpState } from '../components/sign-up-notice';
import { EmailField, FormError, lengthHint, PASSPHRASE_TIP, PasswordField } from '../components/form-fields';
import { fieldErrors } from '../lib/field-errors';
import { MIN_PASSWORD, registerErrorField, type SignUpField, signUpProblems } from '../lib/sign-up';

function safeNext(next: string | null): string {
  // Only paths inside the app: never an open redirect.
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/portfolio';
}

export function LoginPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useMe();
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => call(api.POST('/login', { body: { email, password } })),
    onSuccess: (user) => {
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, user);
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  if (me.data && !login.isSuccess) return <Navigate to={safeNext(params.get('next'))} replace />;
  const errors = login.isError ? fieldErrors(login.error, ['email', 'password'] as const) : { fields: {}, form: null };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <div className="auth-card">
      <h1>Log in</h1>
      {params.get('registered') && (
        <p className="alert alert-ok" role="status">
          <span>Account created.{params.get('email') ? ` We sent a verification link to ${params.get('email')}.` : ''} Log in to start.</span>
        </p>
      )}
      {params.get('deleted') && (
        <p className="alert alert-ok" role="status" data-testid="account-deleted">
          Your account was deleted and you are signed out. Your bets stay in the public record under an anonymous id.
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <EmailField value={email} onChange={(e) => setEmail(e.target.value)} error={errors.fields.email} />
        <PasswordField
          label="Password"
          name="password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.fields.password}
        />
        <p className="forgot-link">
          <Link to="/forgot-password">Forgot password?</Link>
        </p>
        {errors.form && (
          <FormError>{login.error && 'status' in login.error && login.error.status === 401 ? 'Wrong email or password.' : errors.form}</FormError>
        )}
        <button type="submit" className="btn btn-primary" disabled={login.isPending}>
          {login.isPending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <p className="muted">
        No account yet? <Link to={params.get('next') ? `/register?next=${encodeURIComponent(params.get('next') ?? '')}` : '/register'}>Sign up</Link>
      </p>
    </div>
  );
}

export function RegisterPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [touched, setTouched] = useState(false);
  // The answer last received stays next to its field until that field changes.
  const [sentFor, setSentFor] = useState<Record<SignUpField, string> | null>(null);
  // SPEC's API: register, then log in with the same email and password, so a new account starts signed in.
  const register = useMutation({
    mutationFn: async (body: { username: string; email: string; password: string }) => {
      await call(api.POST('/register', { body }));
      try {
        return await call(api.POST('/login', { body: { email: body.email, password: body.password } }));
      } catch {
        return null;
      }
    },
    onSuccess: (user, body) => {
      const next = params.get('next');
      if (user === null) {
        // The account exists; logging in failed (a throttle, the network): the log-in page takes over.
        navigate(`/login?registered=1&email=${encodeURIComponent(body.email)}${next ? `&next=${encodeURIComponent(next)}` : ''}`);
        return;
      }
      queryClient.clear();
      queryClient.setQueryData(queryKeys.me, user);
      navigate(safeNext(next), { replace: true, state: signedUpState(body.email) });
    },
  });
  const values = { username, email, password };
  const own = touched ? signUpProblems(values) : {};
  const failed = register.error instanceof ApiError ? register.error : null;
  const fromApi = failed ? registerErrorField(failed.status, failed.body?.error) : null;
  const stillSame = (f: SignUpField) => sentFor !== null && sentFor[f] === values[f];
  const apiField = (f: SignUpField) => (fromApi?.[f] && stillSame(f) ? fromApi[f] : undefined);
  const other = register.isError && !fromApi ? fieldErrors(register.error, ['username', 'email', 'password'] as const) : { fields: {}, form: null };
  const short = password.length < MIN_PASSWORD;
  const problem = (f: SignUpField) => own[f] ?? apiField(f) ?? other.fields[f];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (Object.keys(signUpProblems(values)).length > 0) return;
    setSentFor(values);
    register.mutate({ username, email: email.trim(), password });
  };
  return (
    <div className="auth-card">
      <h1>Sign up</h1>
      <form onSubmit={submit} noValidate>
        <Field
          label="Username"
          name="username"
          autoComplete="username"
          required
          minLength={3}
          maxLength={30}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          hint="3 to 30 letters, digits or _"
          error={problem('username')}
        />
        <EmailField value={email} onChange={(e) => setEmail(e.target.value)} error={problem('email')} />
        <PasswordField
          label="Password"
          name="password"
          autoComplete="new-password"
          minLength={MIN_PASSWORD}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          hint={<span className={touched && short ? 'gain-down' : undefined}>{`${lengthHint(password.length)} ${PASSPHRASE_TIP}`}</span>}
          error={problem('password')}
        />
        {other.form && <FormError>{other.form}</FormError>}
        <button type="submit" className="btn btn-primary" disabled={register.isPending}>
          {register.isPending ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p className="muted">
        Already registered? <Link to={params.get('next') ? `/login?next=${encodeURIComponent(params.get('next') ?? '')}` : '/login'}>Log in</Link>
      </p>
    </div>
  );
}
