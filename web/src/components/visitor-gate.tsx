// What a visitor sees where a signed-in trader acts: why the prices may be
// older than a trader's (DESIGN: visitors get the quotes the service already
// holds, never a call to the price provider) and where to sign up.
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { useMe } from '../api/queries';

export function VisitorGate({ ticker, hasQuote, children }: { ticker: string; hasQuote: boolean; children: ReactNode }) {
  const me = useMe();
  const { pathname, search } = useLocation();
  if (me.isPending) return null;
  if (me.data) return <>{children}</>;
  const next = encodeURIComponent(pathname + search);
  return (
    <p className="alert alert-info" data-testid="visitor-note">
      {hasQuote
        ? `Visitors see the latest price the service has published for ${ticker}; a trader's may be newer.`
        : `No recent price of ${ticker} to show a visitor yet: signed-in traders get a live quote.`}{' '}
      <Link to={`/register?next=${next}`}>Sign up</Link> or <Link to={`/login?next=${next}`}>log in</Link> to see live prices and open a bet.
    </p>
  );
}
