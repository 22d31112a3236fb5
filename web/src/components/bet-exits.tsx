// Exit rules in the web app (docs/exits.md): the stop-loss and take-profit
// fields of the bet form, and the owner's panel on an open bet. Each level
// shows the price it corresponds to now; the bet closes at the first published
// quote at or beyond it, which after a gap is beyond it, and the UI says so.
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, call, callWrite, type Direction, type Schemas } from '../api/client';
import { useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { formatPrice } from '../lib/format';
import { Field } from './field';
import { ErrorState } from './status';

export type BetExits = Schemas['BetExits'];

/** DESIGN's bounds, percent of gain from entry. */
export const STOP_LOSS = { min: -99, max: -0.01 };
export const TAKE_PROFIT = { min: 0.01, max: 10_000 };

/** The price at which a bet's gain from `entry` is `gain` percent (a SHORT's price falls as its gain rises). */
export function levelPrice(direction: Direction, entry: number, gain: number): number {
  return direction === 'LONG' ? entry * (1 + gain / 100) : entry * (1 - gain / 100);
}

/** A level typed in a field: a number within the bounds, or null when empty; undefined when it is not valid. */
export function parseLevel(text: string, bounds: { min: number; max: number }): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) && n >= bounds.min && n <= bounds.max ? n : undefined;
}

export const GAP_NOTE = 'Closes at the first published quote at or beyond the level, not at the level: after a gap, beyond it.';

function levelHint(
  direction: Direction,
  entry: number | null,
  level: number | null | undefined,
  bounds: { min: number; max: number },
  basis: string,
): string {
  if (level === undefined) return `From ${bounds.min} to ${bounds.max} (percent of gain from entry).`;
  if (level === null || entry === null) return `Optional, ${bounds.min} to ${bounds.max} % of gain from entry.`;
  return `≈ ${formatPrice(levelPrice(direction, entry, level))} ${basis}.`;
}

/**
 * The two level fields, shared by the bet form and the panel. `entry` is the
 * price the levels are read against: today's quote in the form (the entry is
 * the quote at opening), the entry price on an open bet; `basis` says which.
 */
export function ExitFields({
  direction,
  entry,
  basis,
  stopLoss,
  takeProfit,
  onStopLoss,
  onTakeProfit,
}: {
  direction: Direction;
  entry: number | null;
  basis: string;
  stopLoss: string;
  takeProfit: string;
  onStopLoss: (v: string) => void;
  onTakeProfit: (v: string) => void;
}) {
  const sl = parseLevel(stopLoss, STOP_LOSS);
  const tp = parseLevel(takeProfit, TAKE_PROFIT);
  return (
    <div className="inline-form exit-fields">
      <Field
        label="Stop-loss % (optional)"
        type="number"
        name="stop_loss"
        step="any"
        min={STOP_LOSS.min}
        max={STOP_LOSS.max}
        placeholder="-5"
        value={stopLoss}
        onChange={(e) => onStopLoss(e.target.value)}
        error={sl === undefined ? `Between ${STOP_LOSS.min} and ${STOP_LOSS.max}` : null}
        hint={<span data-testid="stop-loss-price">{levelHint(direction, entry, sl, STOP_LOSS, basis)}</span>}
      />
      <Field
        label="Take-profit % (optional)"
        type="number"
        name="take_profit"
        step="any"
        min={TAKE_PROFIT.min}
        max={TAKE_PROFIT.max}
        placeholder="10"
        value={takeProfit}
        onChange={(e) => onTakeProfit(e.target.value)}
        error={tp === undefined ? `Between ${TAKE_PROFIT.min} and ${TAKE_PROFIT.max}` : null}
        hint={<span data-testid="take-profit-price">{levelHint(direction, entry, tp, TAKE_PROFIT, basis)}</span>}
      />
    </div>
  );
}

const text = (n: number | null) => (n === null ? '' : String(n));

/** The owner's stop-loss and take-profit on an open bet: what stands, with the price of each, and a form to change them. */
export function BetExitsPanel({ betId, direction, entry }: { betId: number; direction: Direction; entry: number }) {
  const exits = useQuery({
    queryKey: queryKeys.bet.exits(betId),
    queryFn: (): Promise<BetExits> => call(api.GET('/bet/{bet_id}/exits', { params: { path: { bet_id: betId } } })),
  });
  if (exits.isError) return <ErrorState error={exits.error} retry={() => void exits.refetch()} />;
  if (!exits.data) return null;
  // Keyed by the last change, so the form starts again from what the server holds.
  return <ExitsForm key={exits.data.set_at ?? 'none'} exits={exits.data} direction={direction} entry={entry} />;
}

function ExitsForm({ exits, direction, entry }: { exits: BetExits; direction: Direction; entry: number }) {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const [stopLoss, setStopLoss] = useState(text(exits.stop_loss));
  const [takeProfit, setTakeProfit] = useState(text(exits.take_profit));
  const betId = exits.bet_id;
  const save = useMutation({
    mutationFn: (body: { stop_loss: number | null; take_profit: number | null }) =>
      callWrite(keys.keyFor(['exits', betId, body]), (header) =>
        api.PUT('/bet/{bet_id}/exits', { params: { header, path: { bet_id: betId } }, body }),
      ),
    onSettled: (_d, _e, body) => keys.settled(['exits', betId, body]),
    onSuccess: () => invalidate(queryKeys.bet.one(betId)),
  });
  const sl = parseLevel(stopLoss, STOP_LOSS);
  const tp = parseLevel(takeProfit, TAKE_PROFIT);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (sl === undefined || tp === undefined) return;
    save.mutate({ stop_loss: sl, take_profit: tp });
  };
  const line = (label: string, level: number | null, price: number | null) =>
    level === null ? (
      <li>{label}: none</li>
    ) : (
      <li>
        {label}: {level} % · <span className="num">{formatPrice(price ?? levelPrice(direction, entry, level))}</span>
      </li>
    );
  return (
    <section className="card" aria-labelledby="exits-heading" data-testid="bet-exits">
      <h2 id="exits-heading">Stop-loss and take-profit</h2>
      <ul>
        {line('Stop-loss', exits.stop_loss, exits.stop_loss_price)}
        {line('Take-profit', exits.take_profit, exits.take_profit_price)}
      </ul>
      <p className="small muted">{GAP_NOTE} Empty a field to remove its level.</p>
      <form onSubmit={submit} aria-label="Change the stop-loss and take-profit">
        <ExitFields
          direction={direction}
          entry={entry}
          basis={`from the entry at ${formatPrice(entry)}`}
          stopLoss={stopLoss}
          takeProfit={takeProfit}
          onStopLoss={setStopLoss}
          onTakeProfit={setTakeProfit}
        />
        <button type="submit" className="btn btn-small" disabled={save.isPending || sl === undefined || tp === undefined}>
          {save.isPending ? 'Saving…' : 'Save exits'}
        </button>
      </form>
      {save.isError && <ErrorState error={save.error} />}
      {save.isSuccess && (
        <p className="alert alert-ok" role="status">
          Exits saved.
        </p>
      )}
    </section>
  );
}

/** Why a finished bet ended, in words (close_reason). */
export function closeReasonLine(reason: string | null | undefined): string | null {
  switch (reason) {
    case 'stop_loss':
      return 'Closed by its stop-loss, at the first published quote at or beyond the level.';
    case 'take_profit':
      return 'Closed by its take-profit, at the first published quote at or beyond the level.';
    case 'target_date':
      return 'Settled at its target date.';
    case 'manual':
      return 'Closed by its owner.';
    default:
      return null;
  }
}
