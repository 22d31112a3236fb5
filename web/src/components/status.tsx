import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { ApiError, errorMessage } from '../api/client';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="muted" role="status" aria-live="polite">
      {label}
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="alert alert-error" role="alert">
      <span>{errorMessage(error)}</span>
      {retry && (
        <button type="button" className="btn btn-small" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** A 403 LIMIT_REACHED explained, with the way out. */
export function LimitMessage({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || !error.isLimit) return <ErrorState error={error} />;
  return (
    <div className="alert alert-warn" role="alert">
      <span>
        {error.body?.message ?? 'Limit reached.'} (limit {error.body?.limit})
      </span>{' '}
      <Link to="/plans">See the plans to raise it</Link>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted empty">{children}</p>;
}
