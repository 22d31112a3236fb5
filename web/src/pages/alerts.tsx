import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { api, callWrite, type Schemas } from '../api/client';
import { useAlerts, useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { Field } from '../components/field';
import { Empty, ErrorState, LimitMessage, Loading } from '../components/status';
import { useActionKeys } from '../lib/action-keys';
import { formatDateTime, formatGain, formatPrice } from '../lib/format';

type Alert = Schemas['Alert'];
type Kind = Alert['kind'];

const KIND_LABEL: Record<Kind, string> = {
  above: 'Price at or above',
  below: 'Price at or below',
  move: 'Daily move of at least (%)',
};

/** The rule in words, as the list shows it. */
function ruleOf(a: Pick<Alert, 'ticker' | 'kind' | 'value'>): string {
  if (a.kind === 'move') return `${a.ticker} moves ${a.value} % either way since its previous close`;
  return `${a.ticker} at or ${a.kind} ${formatPrice(a.value)}`;
}

export function AlertsPage() {
  const [params] = useSearchParams();
  return (
    <>
      <h1>Price alerts</h1>
      <p className="muted">
        An alert fires once, at the first published quote that meets it — at that quote's price, which may be beyond your level when the price jumps.
        You get a notice here, in Telegram if linked, and by email if you chose each notice by email (<Link to="/settings">settings</Link>).
      </p>
      <NewAlertForm key={params.get('ticker') ?? ''} initialTicker={(params.get('ticker') ?? '').toUpperCase()} />
      <AlertList />
    </>
  );
}

function NewAlertForm({ initialTicker }: { initialTicker: string }) {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const [ticker, setTicker] = useState(initialTicker);
  const [kind, setKind] = useState<Kind>('above');
  const [value, setValue] = useState('');
  const create = useMutation({
    mutationFn: (body: { ticker: string; kind: Kind; value: number }) =>
      callWrite(keys.keyFor(['alert', body]), (header) => api.POST('/alerts', { params: { header }, body })),
    onSettled: (_data, _error, body) => keys.settled(['alert', body]),
    onSuccess: () => {
      setValue('');
      invalidate(queryKeys.alerts);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ ticker: ticker.trim().toUpperCase(), kind, value: Number(value) });
  };
  return (
    <form className="card bet-form" onSubmit={submit} aria-label="New alert">
      <h2>New alert</h2>
      <Field
        label="Ticker"
        name="ticker"
        value={ticker}
        onChange={(e) => setTicker(e.target.value)}
        placeholder="AAPL, BTC-USD…"
        required
        maxLength={15}
        spellCheck={false}
        autoComplete="off"
      />
      <label className="field">
        <span>When</span>
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          {(Object.keys(KIND_LABEL) as Kind[]).map((k) => (
            <option key={k} value={k}>
              {KIND_LABEL[k]}
            </option>
          ))}
        </select>
      </label>
      <Field
        label={kind === 'move' ? 'Move (%)' : 'Price'}
        name="value"
        type="number"
        inputMode="decimal"
        step="any"
        min={kind === 'move' ? 0.01 : 0}
        max={kind === 'move' ? 1000 : undefined}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        required
        hint={
          kind === 'move'
            ? 'The change since the previous close, as the markets page shows it (crypto: since 24 hours before).'
            : 'Already met now? It fires at once, at the current quote.'
        }
      />
      <button type="submit" className="btn btn-primary" disabled={create.isPending || !ticker.trim() || !(Number(value) > 0)}>
        {create.isPending ? 'Setting…' : 'Set alert'}
      </button>
      {create.isError && <LimitMessage error={create.error} />}
      {create.isSuccess && (
        <p className="alert alert-ok" role="status">
          Alert set: {ruleOf(create.data)}.
        </p>
      )}
    </form>
  );
}

function AlertList() {
  const alerts = useAlerts();
  if (alerts.isPending) return <Loading label="Loading alerts…" />;
  if (alerts.isError) return <ErrorState error={alerts.error} retry={() => void alerts.refetch()} />;
  const { alerts: rows, active, capacity } = alerts.data;
  return (
    <section className="card" aria-labelledby="alerts-heading">
      <h2 id="alerts-heading">Your alerts</h2>
      <p className="muted" data-testid="alert-capacity">
        Active <strong className="num">{active}</strong>/<strong className="num">{capacity}</strong>
      </p>
      {rows.length === 0 ? (
        <Empty>No alerts yet. Set one above, or from an instrument on the markets page.</Empty>
      ) : (
        <ul className="list" data-testid="alert-list">
          {rows.map((a) => (
            <AlertRow key={a.id} alert={a} />
          ))}
        </ul>
      )}
    </section>
  );
}

function AlertRow({ alert }: { alert: Alert }) {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const remove = useMutation({
    mutationFn: () =>
      callWrite(keys.keyFor(['delete-alert', alert.id]), (header) =>
        api.DELETE('/alerts/{alert_id}', { params: { header, path: { alert_id: alert.id } } }),
      ),
    onSettled: () => keys.settled(['delete-alert', alert.id]),
    onSuccess: () => invalidate(queryKeys.alerts),
  });
  return (
    <li className="list-row" data-testid="alert-row">
      <span className="instrument-name">
        <Link to={`/markets?ticker=${encodeURIComponent(alert.ticker)}`}>{alert.ticker}</Link> {ruleOf(alert).slice(alert.ticker.length + 1)}
        <br />
        {alert.status === 'fired' ? (
          <span data-testid="alert-fired">
            Fired at <span className="num">{formatPrice(alert.fired_price ?? 0)}</span>
            {alert.fired_change_percent !== null && <> ({formatGain(alert.fired_change_percent)})</>} on {formatDateTime(alert.fired_at)}
          </span>
        ) : (
          <span className="muted">Active since {formatDateTime(alert.created_at)}</span>
        )}
      </span>
      <span className="follow">
        <button
          type="button"
          className="btn"
          onClick={() => remove.mutate()}
          disabled={remove.isPending}
          aria-label={`Remove the alert: ${ruleOf(alert)}`}
        >
          Remove
        </button>
        {remove.isError && <ErrorState error={remove.error} />}
      </span>
    </li>
  );
}
