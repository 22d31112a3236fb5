import { useMutation } from '@tanstack/react-query';
import { type KeyboardEvent, type MouseEvent, useEffect, useRef, useState } from 'react';
import { api, callWrite, type PortfolioBet } from '../api/client';
import { useInvalidate } from '../api/queries';
import { afterBetChange } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { formatCountdown, formatGain, formatQuote } from '../lib/format';
import { useNow } from '../lib/use-now';
import { ErrorState } from './status';

/** The outcome of the latest close or cancel: one banner, replaced by the next outcome. */
export type BetResult =
  | { kind: 'closed'; ticker: string; exitPrice: number; gain: number }
  | { kind: 'cancelled'; betId: number }
  | { kind: 'error'; error: unknown };

export function useBetMutations() {
  const invalidate = useInvalidate();
  const [result, setResult] = useState<BetResult | null>(null);
  const refresh = () => invalidate(...afterBetChange);
  const keys = useActionKeys();
  const close = useMutation({
    mutationFn: (id: number) =>
      callWrite(keys.keyFor(['close', id]), (header) => api.POST('/bet/close', { params: { header }, body: { bet_id: id } })),
    onSuccess: (data) => setResult({ kind: 'closed', ticker: data.ticker, exitPrice: data.exit_price, gain: data.gain_percent }),
    onError: (error) => setResult({ kind: 'error', error }),
    onSettled: (_data, _error, id) => {
      keys.settled(['close', id]);
      refresh();
    },
  });
  const cancel = useMutation({
    mutationFn: (id: number) =>
      callWrite(keys.keyFor(['cancel', id]), (header) => api.DELETE('/bet/{bet_id}', { params: { header, path: { bet_id: id } } })),
    onSuccess: (data) => setResult({ kind: 'cancelled', betId: data.bet_id }),
    onError: (error) => setResult({ kind: 'error', error }),
    onSettled: (_data, _error, id) => {
      keys.settled(['cancel', id]);
      refresh();
    },
  });
  return { close, cancel, result };
}

/**
 * The one result banner of the bet actions (the latest outcome only). Each
 * new outcome takes the focus: the button that asked for it has just gone
 * (its row closed) or gone quiet, and the focus would otherwise fall to the
 * page's body, where Tab starts again from the top.
 */
export function BetResultBanner({ result }: { result: BetResult | null }) {
  const banner = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (result !== null) banner.current?.focus({ preventScroll: false });
  }, [result]);
  if (result === null) return null;
  return (
    <div data-testid="bet-result" ref={banner} tabIndex={-1}>
      {result.kind === 'error' ? (
        <ErrorState error={result.error} />
      ) : (
        <p className="alert alert-ok" role="status">
          {result.kind === 'closed' ? (
            <>
              Closed {result.ticker} at <span className="num">{formatQuote(result.exitPrice)}</span>: {formatGain(result.gain)}.
            </>
          ) : (
            <>Bet #{result.betId} cancelled.</>
          )}
        </p>
      )}
    </div>
  );
}

type Asking = 'close' | 'cancel' | null;

/**
 * Cancel while the window is open (with the time left), close always; each
 * asks first, in place: "Yes" or "Keep it". The second click of a double
 * click never confirms (its `detail` is 2), so a double click on Close only
 * asks.
 */
export function BetActions({ bet, mutations }: { bet: PortfolioBet; mutations: ReturnType<typeof useBetMutations> }) {
  const now = useNow();
  const [asking, setAsking] = useState<Asking>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const openers = { close: useRef<HTMLButtonElement>(null), cancel: useRef<HTMLButtonElement>(null) };
  // The question just dismissed: its button takes the focus back once it is drawn again.
  const [returnTo, setReturnTo] = useState<Asking>(null);
  const left = bet.cancelable_until ? Date.parse(bet.cancelable_until) - now : 0;
  const busy =
    (mutations.close.isPending && mutations.close.variables === bet.id) || (mutations.cancel.isPending && mutations.cancel.variables === bet.id);
  // The window can close while the question is open: then there is nothing left to cancel.
  const question: Asking = asking === 'cancel' && left <= 0 ? null : asking;
  useEffect(() => {
    if (question !== null) keep.current?.focus();
  }, [question]);
  useEffect(() => {
    if (question !== null || returnTo === null) return;
    // Cancel's button is gone once its window has closed: Close is the one left.
    (openers[returnTo].current ?? openers.close.current)?.focus();
    setReturnTo(null);
  });

  const dismiss = () => {
    setReturnTo(question);
    setAsking(null);
  };

  if (question !== null) {
    const confirm = (e: MouseEvent) => {
      if (e.detail > 1) return;
      setAsking(null);
      if (question === 'close') mutations.close.mutate(bet.id);
      else mutations.cancel.mutate(bet.id);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      // Escape answers "keep it", as it dismisses any other question; the phone menu must not see it too.
      e.stopPropagation();
      dismiss();
    };
    const subject = ` bet ${bet.id} on ${bet.ticker}`;
    return (
      // biome-ignore lint/a11y/noStaticElementInteractions: Escape from either button inside answers the question; the buttons are the controls
      <div className="actions confirm" data-testid={`confirm-${question}`} onKeyDown={onKeyDown}>
        <span className="confirm-text">{question === 'close' ? `Close ${bet.ticker} at the current price?` : `Cancel this ${bet.ticker} bet?`}</span>
        {/* Each name starts with the button's visible words (WCAG 2.5.3), then says which bet. */}
        <button type="button" className={`btn btn-small ${question === 'close' ? 'btn-primary' : 'btn-danger'}`} onClick={confirm}>
          Yes, {question}
          <span className="sr-only">{subject}</span>
        </button>
        <button ref={keep} type="button" className="btn btn-small" onClick={(e) => e.detail <= 1 && dismiss()}>
          Keep it
          <span className="sr-only"> open:{subject}</span>
        </button>
      </div>
    );
  }
  return (
    <div className="actions">
      {left > 0 && (
        <button ref={openers.cancel} type="button" className="btn btn-small" disabled={busy} onClick={() => setAsking('cancel')}>
          Cancel <span className="num countdown">{formatCountdown(left)}</span>
          <span className="sr-only">
            {' '}
            left to cancel bet {bet.id} on {bet.ticker}
          </span>
        </button>
      )}
      <button ref={openers.close} type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => setAsking('close')}>
        Close
        <span className="sr-only">
          {' '}
          bet {bet.id} on {bet.ticker}
        </span>
      </button>
    </div>
  );
}
