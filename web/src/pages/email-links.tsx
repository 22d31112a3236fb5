import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, call, errorMessage } from '../api/client';
import { Loading } from '../components/status';

/**
 * Where an emailed link lands (verify an address, confirm a change): the page
 * sends the link's token once and says what happened. A mail scanner that
 * fetches the link runs no script, so it uses nothing up.
 */
function EmailLinkPage({ kind }: { kind: 'verify' | 'confirm' }) {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const queryClient = useQueryClient();
  const result = useQuery({
    queryKey: ['email-link', kind, token],
    queryFn: () =>
      call(
        kind === 'verify' ? api.GET('/email/verify', { params: { query: { token } } }) : api.GET('/email/confirm', { params: { query: { token } } }),
      ),
    enabled: token !== '',
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
  });
  useEffect(() => {
    if (result.isSuccess) void queryClient.invalidateQueries({ queryKey: ['my-email'] });
  }, [result.isSuccess, queryClient]);
  const title = kind === 'verify' ? 'Verify your email address' : 'Confirm your new email address';
  return (
    <div className="auth-card">
      <h1>{title}</h1>
      {token === '' && (
        <p className="alert alert-error" role="alert">
          This page needs the link from the email.
        </p>
      )}
      {result.isLoading && <Loading />}
      {result.isSuccess && (
        <p className="alert alert-ok" role="status" data-testid="email-link-done">
          {result.data.message}: {result.data.email}.
        </p>
      )}
      {result.isError && (
        <p className="alert alert-error" role="alert" data-testid="email-link-failed">
          {errorMessage(result.error)}. {kind === 'verify' ? 'Send a new link from your settings.' : 'Ask for the change again from your settings.'}
        </p>
      )}
      <p>
        <Link to="/settings">Your settings</Link>
      </p>
    </div>
  );
}

export function VerifyEmailPage() {
  return <EmailLinkPage kind="verify" />;
}

export function ConfirmEmailPage() {
  return <EmailLinkPage kind="confirm" />;
}
