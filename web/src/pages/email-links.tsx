import { useEffect } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useEmailLink, useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { Loading } from '../components/status';

/**
 * Where an emailed link lands (verify an address, confirm a change): the page
 * sends the link's token once and says what happened. A mail scanner that
 * fetches the link runs no script, so it uses nothing up.
 */
function EmailLinkPage({ kind }: { kind: 'verify' | 'confirm' }) {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const invalidate = useInvalidate();
  const result = useEmailLink(kind, token);
  useEffect(() => {
    if (result.isSuccess) invalidate(queryKeys.myEmail);
  }, [result.isSuccess, invalidate]);
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
