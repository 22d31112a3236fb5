// The period buttons and the minimum-of-trades field of the leaderboard and the rankings.
import { useEffect, useId, useRef, useState } from 'react';
import { MAX_MIN_TRADES, type Period, PERIOD_LABELS, type WindowParams } from '../lib/window-params';

interface Props {
  value: WindowParams;
  onChange: (next: Partial<WindowParams>) => void;
  /** The period buttons, in order; null is the leaderboard's all-time board. */
  periods: readonly (Period | null)[];
  /** What an empty minimum means (shown as the placeholder). */
  minTradesDefault: number;
}

export function WindowControls({ value, onChange, periods, minTradesDefault }: Props) {
  const id = useId();
  const [draft, setDraft] = useState(value.minTrades === null ? '' : String(value.minTrades));
  // What was last asked for: leaving the field and pressing Apply must not add two history entries.
  const applied = useRef(value.minTrades);
  // Back and Forward change the URL under the field: follow it.
  useEffect(() => {
    applied.current = value.minTrades;
    setDraft(value.minTrades === null ? '' : String(value.minTrades));
  }, [value.minTrades]);
  const n = Number(draft);
  const valid = draft === '' || (/^\d+$/.test(draft) && n >= 1 && n <= MAX_MIN_TRADES);
  const apply = () => {
    if (!valid) return;
    const next = draft === '' ? null : n;
    if (next === applied.current) return;
    applied.current = next;
    onChange({ minTrades: next });
  };
  return (
    <div className="window-controls">
      <fieldset className="chips" aria-label="Period">
        {periods.map((p) => {
          const active = value.period === p;
          return (
            <button
              key={p ?? 'none'}
              type="button"
              className={`chip ${active ? 'chip-active' : ''}`}
              aria-pressed={active}
              onClick={() => onChange({ period: p })}
            >
              {p === null ? 'All time' : PERIOD_LABELS[p]}
            </button>
          );
        })}
      </fieldset>
      <form
        className="min-trades"
        onSubmit={(e) => {
          e.preventDefault();
          apply();
        }}
      >
        <label htmlFor={id}>Minimum trades</label>
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_MIN_TRADES}
          step={1}
          placeholder={String(minTradesDefault)}
          value={draft}
          aria-invalid={valid ? undefined : true}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={apply}
        />
        <button type="submit" className="btn btn-small" disabled={!valid}>
          Apply
        </button>
      </form>
    </div>
  );
}
