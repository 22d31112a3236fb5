import { useMutation } from '@tanstack/react-query';
import { type KeyboardEvent, type MouseEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { api, callWrite, type Direction } from '../api/client';
import { useInvalidate, usePortfolio, usePrice } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { formatQuote } from '../lib/format';
import { LimitMessage } from './status';

type Mode = 'tail' | 'fade';

/** The bet a tail (the same) or a fade (the opposite) of a `direction` bet opens. */
function copyDirection(mode: Mode, direction: Direction): Direction {
  return mode === 'tail' ? direction : direction === 'LONG' ? 'SHORT' : 'LONG';
}

/**
 * Open the same bet (tail) or the opposite one (fade) as the caller. Each asks
 * first, with the price the new bet would get now and a word when the caller
 * already holds that bet; once opened, the opened bet replaces the buttons, so
 * a second click cannot open a second bet (each write has its own idempotency key).
 */
export function TailFade({ betId, ticker, direction }: { betId: number; ticker: string; direction: Direction }) {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const [asking, setAsking] = useState<Mode | null>(null);
  const [returnTo, setReturnTo] = useState<Mode | null>(null);
  const openers = { tail: useRef<HTMLButtonElement>(null), fade: useRef<HTMLButtonElement>(null) };
  const yes = useRef<HTMLButtonElement>(null);
  const outcome = useRef<HTMLDivElement>(null);
  const portfolio = usePortfolio();
  // The price now, fetched when asked (the bet is opened at the quote of its own instant, as any other).
  const quote = usePrice(ticker, asking !== null);
  const copy = useMutation({
    mutationFn: (mode: Mode) =>
      callWrite(keys.keyFor([mode, betId]), (header) => {
        const params = { params: { header, path: { bet_id: betId } } };
        return mode === 'tail' ? api.POST('/bet/{bet_id}/tail', params) : api.POST('/bet/{bet_id}/fade', params);
      }),
    onSettled: (_data, _error, mode) => keys.settled([mode, betId]),
    onSuccess: () => invalidate(queryKeys.portfolio),
  });
  useEffect(() => {
    if (asking !== null) yes.current?.focus();
  }, [asking]);
  useEffect(() => {
    if (asking !== null || returnTo === null) return;
    openers[returnTo].current?.focus();
    setReturnTo(null);
  });
  // The buttons go while the bet opens: the outcome takes the focus.
  useEffect(() => {
    if (copy.data !== undefined || copy.error !== null) outcome.current?.focus();
  }, [copy.data, copy.error]);

  const opened = copy.variables ? { side: copyDirection(copy.variables, direction) } : null;
  const dismiss = () => {
    setReturnTo(asking);
    setAsking(null);
  };
  let body: ReactNode = null;
  if (copy.isSuccess) {
    // The opened bet stands where the buttons were (in the outcome below).
  } else if (asking !== null) {
    const mode = asking;
    const side = copyDirection(mode, direction);
    const held = portfolio.data?.find((b) => b.ticker === ticker && b.direction === side);
    const confirm = (e: MouseEvent) => {
      // The second click of a double click never confirms.
      if (e.detail > 1) return;
      setAsking(null);
      copy.mutate(mode);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      dismiss();
    };
    body = (
      // biome-ignore lint/a11y/noStaticElementInteractions: Escape from either button inside answers the question; the buttons are the controls
      <div className="actions confirm" data-testid={`confirm-${mode}`} onKeyDown={onKeyDown}>
        <span className="confirm-text" data-testid="copy-quote">
          {mode === 'tail' ? 'Tail' : 'Fade'}: open {side} {ticker} at{' '}
          {quote.data ? (
            <span className="num">{formatQuote(quote.data.price)}</span>
          ) : quote.isError ? (
            'the price when it opens (no quote just now)'
          ) : (
            '…'
          )}
          ?{held ? ` You already hold an open ${side} ${ticker} bet (#${held.id}).` : ''}
        </span>
        <button ref={yes} type="button" className="btn btn-small btn-primary" onClick={confirm}>
          Yes, {mode}
          <span className="sr-only">
            {' '}
            bet {betId}: open {side} {ticker}
          </span>
        </button>
        <button type="button" className="btn btn-small" onClick={(e) => e.detail <= 1 && dismiss()}>
          Not now
        </button>
      </div>
    );
  } else {
    body = (
      <div className="actions">
        <button
          ref={openers.tail}
          type="button"
          className="btn btn-small"
          disabled={copy.isPending}
          onClick={() => setAsking('tail')}
          aria-label={`Tail bet ${betId} on ${ticker}: open the same bet`}
        >
          Tail
        </button>
        <button
          ref={openers.fade}
          type="button"
          className="btn btn-small"
          disabled={copy.isPending}
          onClick={() => setAsking('fade')}
          aria-label={`Fade bet ${betId} on ${ticker}: open the opposite bet`}
        >
          Fade
        </button>
      </div>
    );
  }
  return (
    <div className="tail-fade">
      {body}
      <div ref={outcome} tabIndex={-1}>
        {copy.isError && <LimitMessage error={copy.error} />}
        {copy.isSuccess && opened && (
          <p className="alert alert-ok" role="status">
            Opened bet #{copy.data.bet_id} at <span className="num">{formatQuote(copy.data.entry_price)}</span>.{' '}
            <Link to={`/bet/${copy.data.bet_id}`} data-testid="opened-bet">
              See your bet #{copy.data.bet_id}: {opened.side} {ticker}
            </Link>
          </p>
        )}
      </div>
    </div>
  );
}
