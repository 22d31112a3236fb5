import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, call, callWrite, type Direction } from '../api/client';
import { Field } from '../components/field';
import { PriceChart } from '../components/price-chart';
import { ErrorState, LimitMessage, Loading } from '../components/status';
import { useActionKeys } from '../lib/action-keys';
import { formatPrice, todayUtc } from '../lib/format';

const POPULAR = ['AAPL', 'MSFT', 'NVDA', 'TSLA', 'SPY', 'BTC-USD', 'ETH-USD'];
const TICKER = /^[A-Z0-9][A-Z0-9.-]{0,14}$/;

export function MarketsPage() {
  const [params, setParams] = useSearchParams();
  const ticker = (params.get('ticker') ?? '').toUpperCase();
  const [input, setInput] = useState(ticker);
  const [inputError, setInputError] = useState<string | null>(null);

  const search = (e: FormEvent) => {
    e.preventDefault();
    const t = input.trim().toUpperCase();
    if (!TICKER.test(t)) {
      setInputError('A ticker is 1 to 15 letters, digits, "." or "-", e.g. AAPL or BTC-USD.');
      return;
    }
    setInputError(null);
    setParams({ ticker: t });
  };

  return (
    <>
      <h1>Markets</h1>
      <search>
        <form className="inline-form" onSubmit={search}>
          <Field
            label="Ticker"
            name="ticker"
            value={input}
            onChange={(e) => setInput(e.target.value.toUpperCase())}
            placeholder="AAPL"
            autoCapitalize="characters"
            spellCheck={false}
            error={inputError}
          />
          <button type="submit" className="btn btn-primary">
            Show
          </button>
        </form>
      </search>
      <fieldset className="chips" aria-label="Popular tickers">
        {POPULAR.map((t) => (
          <button
            key={t}
            type="button"
            className={`chip ${t === ticker ? 'chip-active' : ''}`}
            onClick={() => {
              setInput(t);
              setParams({ ticker: t });
            }}
          >
            {t}
          </button>
        ))}
      </fieldset>
      {ticker ? <TickerPanel key={ticker} ticker={ticker} /> : <p className="muted">Pick a ticker to see its price and open a bet.</p>}
    </>
  );
}

function TickerPanel({ ticker }: { ticker: string }) {
  const price = useQuery({
    queryKey: ['price', ticker],
    queryFn: () => call(api.GET('/price/{ticker}', { params: { path: { ticker } } })),
    refetchInterval: 5000,
    retry: false,
  });
  return (
    <section className="card" aria-labelledby="ticker-heading">
      <div className="ticker-head">
        <h2 id="ticker-heading">{ticker}</h2>
        <div className="price-big num" data-testid="ticker-price" aria-live="polite">
          {price.data ? formatPrice(price.data.price) : price.isPending ? '…' : '—'}
        </div>
      </div>
      {price.isError && <ErrorState error={price.error} retry={() => void price.refetch()} />}
      {price.isPending && <Loading label="Loading price…" />}
      <PriceChart ticker={ticker} />
      {price.data && <OpenBetForm ticker={ticker} />}
    </section>
  );
}

function OpenBetForm({ ticker }: { ticker: string }) {
  const queryClient = useQueryClient();
  const [direction, setDirection] = useState<Direction>('LONG');
  const [targetDate, setTargetDate] = useState('');
  const today = todayUtc();
  const keys = useActionKeys();
  const open = useMutation({
    mutationFn: (body: { ticker: string; direction: Direction; target_date?: string }) =>
      callWrite(keys.keyFor(['open', body]), (header) => api.POST('/bet/open', { params: { header }, body })),
    onSettled: (_data, _error, body) => keys.settled(['open', body]),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['portfolio'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    open.mutate({ ticker, direction, ...(targetDate ? { target_date: targetDate } : {}) });
  };
  return (
    <form className="bet-form" onSubmit={submit} aria-label={`Open a bet on ${ticker}`}>
      <fieldset className="segmented">
        <legend>Direction</legend>
        {(['LONG', 'SHORT'] as const).map((d) => (
          <label key={d} className={`segment segment-${d.toLowerCase()} ${direction === d ? 'segment-on' : ''}`}>
            <input type="radio" name="direction" value={d} checked={direction === d} onChange={() => setDirection(d)} />
            {d === 'LONG' ? 'Long (price goes up)' : 'Short (price goes down)'}
          </label>
        ))}
      </fieldset>
      <Field
        label="Target date (optional)"
        type="date"
        name="target_date"
        min={today}
        value={targetDate}
        onChange={(e) => setTargetDate(e.target.value)}
        hint="Settled automatically after that day's market close. Past dates are not allowed."
      />
      <button type="submit" className="btn btn-primary" disabled={open.isPending || (targetDate !== '' && targetDate < today)}>
        {open.isPending ? 'Opening…' : `Open ${direction} on ${ticker}`}
      </button>
      {open.isError && <LimitMessage error={open.error} />}
      {open.isSuccess && (
        <p className="alert alert-ok" role="status">
          Bet #{open.data.bet_id} opened at <span className="num">{formatPrice(open.data.entry_price)}</span>.{' '}
          <Link to="/portfolio">See it in your portfolio</Link>
        </p>
      )}
    </form>
  );
}
