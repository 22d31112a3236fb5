import { type UseQueryResult, useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import type { HistoryRange } from '../api/charts';
import { api, ApiError, callWrite, type Direction } from '../api/client';
import type { Instrument, searchInstruments } from '../api/instruments';
import { useInstrumentChart, useInstruments, useInvalidate, usePortfolio } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { Hint } from '../components/hint';
import { ExitFields, GAP_NOTE, parseLevel, STOP_LOSS, TAKE_PROFIT } from '../components/bet-exits';
import { Field } from '../components/field';
import { InstrumentConsensus } from '../components/instrument-consensus';
import { PriceChartView } from '../components/price-chart';
import { THESIS_MAX, ThesisField, thesisChars } from '../components/thesis';
import { ErrorState, LimitMessage, Loading } from '../components/status';
import { VisitorGate } from '../components/visitor-gate';
import { useActionKeys } from '../lib/action-keys';
import { formatDateTime, formatGain, formatPrice, formatQuote, gainClass, todayUtc } from '../lib/format';
import { settlementHint } from '../lib/settlement';
import { useDebounced } from '../lib/use-debounced';

const TICKER = /^[A-Z0-9][A-Z0-9.-]{0,14}$/;
/** Instruments shown for a search; the directory is paged on the server, a list this long is plenty to browse. */
const LIST_SIZE = 12;

export function MarketsPage() {
  const [params, setParams] = useSearchParams();
  const ticker = (params.get('ticker') ?? '').toUpperCase();
  const [input, setInput] = useState(params.get('q') ?? '');
  const q = useDebounced(input.trim(), 250);
  const results = useInstruments(q, LIST_SIZE);

  // A pick brings its chart and bet form into view (on a phone they are below the list); a link to ?ticker= does not scroll.
  const [reveal, setReveal] = useState(false);
  const choose = (symbol: string) => {
    setReveal(true);
    setParams(input.trim() ? { ticker: symbol, q: input.trim() } : { ticker: symbol });
  };
  const searchForm = useRef<HTMLFormElement>(null);
  // An unknown symbol: search the directory with what was typed, from the search box.
  const searchFor = (text: string) => {
    setInput(text);
    const box = searchForm.current?.querySelector('input');
    box?.focus();
    box?.scrollIntoView({ block: 'center' });
  };

  // Enter picks the best match, or the text itself when it is a ticker the directory does not list.
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const first = results.data?.instruments[0];
    const typed = input.trim().toUpperCase();
    if (first && q === input.trim()) choose(first.symbol);
    else if (TICKER.test(typed)) choose(typed);
  };

  return (
    <>
      <h1>Markets</h1>
      <search>
        <form className="inline-form" onSubmit={submit} ref={searchForm}>
          <Field
            label="Search by name or symbol"
            name="q"
            type="search"
            value={input}
            onChange={(e) => setInput(e.target.value)}
            placeholder="Apple, AAPL, bitcoin…"
            spellCheck={false}
            autoComplete="off"
            maxLength={50}
          />
          <button type="submit" className="btn btn-primary">
            Show
          </button>
        </form>
      </search>
      <InstrumentList results={results} selected={ticker} onChoose={choose} />
      {ticker ? (
        <TickerPanel key={ticker} ticker={ticker} reveal={reveal} onSearch={searchFor} />
      ) : (
        <p className="muted">Pick an instrument to see its chart and open a bet.</p>
      )}
    </>
  );
}

function InstrumentList({
  results,
  selected,
  onChoose,
}: {
  results: UseQueryResult<Awaited<ReturnType<typeof searchInstruments>>>;
  selected: string;
  onChoose: (symbol: string) => void;
}) {
  if (results.isPending) return <Loading label="Loading instruments…" />;
  if (results.isError) return <ErrorState error={results.error} retry={() => void results.refetch()} />;
  const { instruments, total } = results.data;
  if (instruments.length === 0) return <p className="muted">No instrument matches that name or symbol.</p>;
  return (
    <section aria-label="Instruments" className="card">
      <p className="small muted" data-testid="price-currency">
        Prices in US dollars (USD).
      </p>
      <ul className="list" data-testid="instrument-list">
        {instruments.map((i) => (
          // The symbol's button covers the whole row (styles.css), so a tap anywhere on it picks the instrument.
          <li key={i.symbol} className="list-row instrument-row">
            <button
              type="button"
              className={`chip instrument-pick ${i.symbol === selected ? 'chip-active' : ''}`}
              aria-current={i.symbol === selected ? 'true' : undefined}
              onClick={() => onChoose(i.symbol)}
            >
              {i.symbol}
            </button>
            <span className="instrument-name">
              {i.name}
              <br />
              <span className="muted">
                {KIND_LABEL[i.kind]} · {i.exchange} · {i.market.open ? (i.kind === 'crypto' ? 'trades 24/7' : 'open') : 'closed'}
              </span>
            </span>
            <span className="num right">
              {i.quote ? formatPrice(i.quote.price) : '—'}
              <br />
              <DayChange quote={i.quote} />
            </span>
            <AlertLink symbol={i.symbol} />
          </li>
        ))}
      </ul>
      {total > instruments.length && (
        <p className="muted">
          {instruments.length} of {total}: type more of a name or symbol to narrow the list.
        </p>
      )}
    </section>
  );
}

const KIND_LABEL = { stock: 'Stock', etf: 'ETF', crypto: 'Crypto' } as const;

/** Every instrument's way to the alerts page, its ticker filled in. */
function AlertLink({ symbol }: { symbol: string }) {
  return (
    <Link className="btn btn-small" to={`/alerts?ticker=${encodeURIComponent(symbol)}`} aria-label={`Set a price alert on ${symbol}`}>
      Alert
    </Link>
  );
}

function DayChange({ quote }: { quote: Instrument['quote'] }) {
  if (!quote || quote.change_percent === null) return <span className="muted">—</span>;
  return <span className={gainClass(quote.change_percent)}>{formatGain(quote.change_percent)}</span>;
}

/** Open or closed now, and when that changes; for a closed market, how old the price is. */
function MarketLine({ instrument }: { instrument: Instrument }) {
  const { market, quote } = instrument;
  if (instrument.kind === 'crypto') return <p className="muted">Trades around the clock.</p>;
  if (market.open) return <p className="muted">Market open · closes {formatDateTime(market.next_close)}</p>;
  return (
    <p className="muted" data-testid="market-closed">
      Market closed — price as of {formatDateTime(quote?.as_of)} · opens {formatDateTime(market.next_open)}
    </p>
  );
}

function TickerPanel({ ticker, reveal, onSearch }: { ticker: string; reveal: boolean; onSearch: (text: string) => void }) {
  const [range, setRange] = useState<HistoryRange>('1d');
  const snapshot = useInstrumentChart(ticker, range);
  const instrument = snapshot.data?.instrument;
  const quote = instrument?.quote ?? null;
  const panel = useRef<HTMLElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when a pick mounts the panel (it is keyed by ticker)
  useEffect(() => {
    if (reveal) panel.current?.scrollIntoView({ block: 'start' });
  }, []);
  const unknown = snapshot.error instanceof ApiError && snapshot.error.status === 404;
  if (unknown)
    return (
      <section className="card" aria-labelledby="ticker-heading" ref={panel}>
        <h2 id="ticker-heading">{ticker}</h2>
        <div className="alert alert-warn" data-testid="unknown-symbol">
          <span>No instrument has the symbol {ticker}: the directory does not list it.</span>
          <button type="button" className="btn btn-small" onClick={() => onSearch(ticker)}>
            Search the directory
          </button>
        </div>
      </section>
    );
  return (
    <section className="card" aria-labelledby="ticker-heading" ref={panel}>
      <div className="ticker-head">
        <h2 id="ticker-heading">
          {ticker}
          {instrument && <span className="muted"> {instrument.name}</span>}
        </h2>
        {/* Not a live region: the price refreshes every 15 s, and a screen reader would read it out each time. */}
        <div className="price-big">
          <span className="num" data-testid="ticker-price">
            {quote ? formatPrice(quote.price) : snapshot.isPending ? '…' : '—'}
          </span>
          {quote && <span className="price-unit"> USD</span>}
        </div>
      </div>
      {quote && (
        <p>
          <DayChange quote={quote} /> <span className="muted">today</span> <AlertLink symbol={ticker} />
        </p>
      )}
      {instrument && <MarketLine instrument={instrument} />}
      {snapshot.isError && !(snapshot.error instanceof ApiError && snapshot.error.status === 401) && (
        <ErrorState error={snapshot.error} retry={() => void snapshot.refetch()} />
      )}
      <PriceChartView
        ticker={ticker}
        range={range}
        onRange={setRange}
        data={snapshot.data?.points}
        pending={snapshot.isPending}
        error={snapshot.isError && snapshot.error instanceof ApiError && snapshot.error.status === 401 ? snapshot.error : null}
        retry={() => void snapshot.refetch()}
      />
      <VisitorGate ticker={ticker} hasQuote={quote !== null}>
        {quote && instrument && <OpenBetForm ticker={ticker} kind={instrument.kind} price={quote.price} />}
      </VisitorGate>
      {instrument && <InstrumentConsensus symbol={ticker} />}
    </section>
  );
}

type OpenBody = { ticker: string; direction: Direction; target_date?: string; thesis?: string; stop_loss?: number; take_profit?: number };

function OpenBetForm({ ticker, kind, price }: { ticker: string; kind: Instrument['kind']; price: number }) {
  const invalidate = useInvalidate();
  const [direction, setDirection] = useState<Direction>('LONG');
  const [targetDate, setTargetDate] = useState('');
  const [thesis, setThesis] = useState('');
  const [stopLoss, setStopLoss] = useState('');
  const [takeProfit, setTakeProfit] = useState('');
  const sl = parseLevel(stopLoss, STOP_LOSS);
  const tp = parseLevel(takeProfit, TAKE_PROFIT);
  const today = todayUtc();
  const keys = useActionKeys();
  const portfolio = usePortfolio();
  // An identical bet (same ticker and direction) already open: the form asks once before opening another.
  const [duplicate, setDuplicate] = useState<{ body: OpenBody; held: number } | null>(null);
  const yes = useRef<HTMLButtonElement>(null);
  const submitButton = useRef<HTMLButtonElement>(null);
  const [returnFocus, setReturnFocus] = useState(false);
  useEffect(() => {
    if (duplicate) yes.current?.focus();
  }, [duplicate]);
  useEffect(() => {
    if (duplicate || !returnFocus) return;
    submitButton.current?.focus();
    setReturnFocus(false);
  });
  const open = useMutation({
    mutationFn: (body: OpenBody) => callWrite(keys.keyFor(['open', body]), (header) => api.POST('/bet/open', { params: { header }, body })),
    onSettled: (_data, _error, body) => keys.settled(['open', body]),
    onSuccess: () => {
      setThesis('');
      invalidate(queryKeys.portfolio);
    },
  });
  // The button is disabled while the bet opens, which drops the focus to the page's body: the outcome takes it.
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open.data !== undefined || open.error !== null) outcome.current?.focus();
  }, [open.data, open.error]);
  // Set while the portfolio is still on its way at a submit: the question needs it, so the form waits for it.
  // The ref stops a second click of the same render; the state disables the button.
  const [checking, setChecking] = useState(false);
  const checkingNow = useRef(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (sl === undefined || tp === undefined || duplicate || checkingNow.current) return;
    const body: OpenBody = {
      ticker,
      direction,
      ...(targetDate ? { target_date: targetDate } : {}),
      ...(thesis.trim() ? { thesis } : {}),
      ...(sl !== null ? { stop_loss: sl } : {}),
      ...(tp !== null ? { take_profit: tp } : {}),
    };
    let bets = portfolio.data;
    if (bets === undefined) {
      // A submit before the first read came back would skip the question; the server opens duplicates
      // anyway, so a portfolio that cannot be read leaves the bet to open without it.
      checkingNow.current = true;
      setChecking(true);
      try {
        bets = (await portfolio.refetch()).data;
      } finally {
        checkingNow.current = false;
        setChecking(false);
      }
    }
    const held = bets?.find((b) => b.ticker === ticker && b.direction === direction);
    if (held) setDuplicate({ body, held: held.id });
    else open.mutate(body);
  };
  const dismissDuplicate = () => {
    setDuplicate(null);
    setReturnFocus(true);
  };
  return (
    <form className="bet-form" onSubmit={submit} aria-label={`Open a bet on ${ticker}`}>
      <Hint id="direction" title="LONG or SHORT?">
        A LONG bet gains when the price rises, a SHORT bet when it falls. No money is staked: a bet's gain is the percentage move from its entry price
        to its exit price, in its direction (a SHORT from 100 to 90 gains 10 %).
      </Hint>
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
        hint={settlementHint(kind, targetDate)}
      />
      <ExitFields
        direction={direction}
        entry={price}
        basis="at today's price"
        stopLoss={stopLoss}
        takeProfit={takeProfit}
        onStopLoss={setStopLoss}
        onTakeProfit={setTakeProfit}
      />
      {(sl != null || tp != null) && <p className="small muted">{GAP_NOTE}</p>}
      <ThesisField value={thesis} onChange={setThesis} />
      <button
        ref={submitButton}
        type="submit"
        className="btn btn-primary"
        disabled={
          duplicate !== null ||
          checking ||
          open.isPending ||
          (targetDate !== '' && targetDate < today) ||
          sl === undefined ||
          tp === undefined ||
          thesisChars(thesis) > THESIS_MAX
        }
      >
        {open.isPending ? 'Opening…' : `Open ${direction} on ${ticker}`}
      </button>
      {duplicate && (
        // biome-ignore lint/a11y/noStaticElementInteractions: Escape from either button inside answers the question; the buttons are the controls
        <div
          className="actions confirm"
          data-testid="confirm-duplicate"
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.stopPropagation();
            dismissDuplicate();
          }}
        >
          <span className="confirm-text">
            You already hold an open {duplicate.body.direction} {ticker} bet (#{duplicate.held}). Open another one?
          </span>
          <button
            ref={yes}
            type="button"
            className="btn btn-small btn-primary"
            onClick={(e) => {
              // The second click of a double click never confirms.
              if (e.detail > 1) return;
              const body = duplicate.body;
              setDuplicate(null);
              open.mutate(body);
            }}
          >
            Yes, open another
            <span className="sr-only">
              {' '}
              {duplicate.body.direction} {ticker} bet
            </span>
          </button>
          <button type="button" className="btn btn-small" onClick={(e) => e.detail <= 1 && dismissDuplicate()}>
            Not now
          </button>
        </div>
      )}
      <div ref={outcome} tabIndex={-1} data-testid="open-result">
        {open.isError && <LimitMessage error={open.error} />}
        {open.isSuccess && (
          <p className="alert alert-ok" role="status">
            Bet #{open.data.bet_id} opened at <span className="num">{formatQuote(open.data.entry_price)}</span>.{' '}
            <Link to="/portfolio">See it in your portfolio</Link>
          </p>
        )}
      </div>
    </form>
  );
}
