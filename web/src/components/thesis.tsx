// A bet's thesis in the web app (docs/theses.md): the field of the bet form
// with its counter, and the thesis as shown, hidden or reported, with the
// owner's Hide and everyone else's Report. React escapes the text it renders.
import { useMutation } from '@tanstack/react-query';
import { useId } from 'react';
import { api, call } from '../api/client';
import { useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { ErrorState } from './status';

export const THESIS_MAX = 280;

/** Characters as the server counts them: code points (an emoji is one). */
export const thesisChars = (text: string): number => [...text].length;

/** The bet form's thesis field: a counter that says how many characters are left, and goes red past the limit. */
export function ThesisField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const id = useId();
  const left = THESIS_MAX - thesisChars(value);
  return (
    <div className="field">
      <label htmlFor={id}>Thesis (optional)</label>
      <textarea
        id={id}
        name="thesis"
        rows={3}
        value={value}
        aria-invalid={left < 0 ? true : undefined}
        aria-describedby={`${id}-hint ${id}-count`}
        onChange={(e) => onChange(e.target.value)}
        placeholder="Why this bet? Plain text, one paragraph."
      />
      <small id={`${id}-hint`} className="hint">
        Shown with the bet and committed in the verifiable record. It can never be edited; you can hide it later.
      </small>
      <small id={`${id}-count`} className={`thesis-count ${left < 0 ? 'field-error' : 'hint'}`} data-testid="thesis-count" aria-live="polite">
        {left >= 0 ? `${left} characters left` : `${-left} characters too many`}
      </small>
    </div>
  );
}

/** What a bet view carries of its thesis (absent: the bet has none). */
export interface ThesisOf {
  id: number;
  thesis?: string | null;
  thesis_state?: 'shown' | 'hidden' | 'reported';
}

/**
 * The thesis of a bet as the reader may see it. `actions` adds the owner's
 * Hide or a signed-in reader's Report (the bet page); lists show the text alone.
 */
export function ThesisView({ bet, own, signedIn, actions = false }: { bet: ThesisOf; own?: boolean; signedIn?: boolean; actions?: boolean }) {
  if (bet.thesis_state === undefined) return null;
  const { thesis, thesis_state: state } = bet;
  return (
    <div className={`thesis thesis-${state}`} data-testid="thesis">
      {thesis != null && <blockquote className="thesis-text">{thesis}</blockquote>}
      {state === 'hidden' && (
        <p className="muted small">{own ? 'You hid your thesis.' : 'Its owner hid this thesis.'} Its hash stays in the record.</p>
      )}
      {state === 'reported' && (
        <p className="muted small" data-testid="thesis-reported">
          {!own
            ? 'This thesis was reported by members and is no longer shown.'
            : thesis != null
              ? 'Hidden from others: enough members with verified accounts and ranked bets reported it. Only you see it.'
              : 'Hidden from others: enough members with verified accounts and ranked bets reported it. You still see it in your history.'}
        </p>
      )}
      {actions && <ThesisActions betId={bet.id} state={state} own={own ?? false} signedIn={signedIn ?? false} />}
    </div>
  );
}

function ThesisActions({ betId, state, own, signedIn }: { betId: number; state: 'shown' | 'hidden' | 'reported'; own: boolean; signedIn: boolean }) {
  const invalidate = useInvalidate();
  const act = useMutation({
    mutationFn: (action: 'hide' | 'report') => {
      const params = { params: { path: { bet_id: betId } } };
      return call(action === 'hide' ? api.POST('/bet/{bet_id}/thesis/hide', params) : api.POST('/bet/{bet_id}/thesis/report', params));
    },
    onSuccess: () => invalidate(queryKeys.bet.one(betId)),
  });
  if (!signedIn || state === 'hidden') return null;
  if (own)
    return (
      <div className="actions">
        <button
          type="button"
          className="btn btn-small"
          disabled={act.isPending}
          onClick={() => {
            if (window.confirm('Hide your thesis? It cannot be shown again; its hash stays in the record.')) act.mutate('hide');
          }}
        >
          Hide thesis
        </button>
        {act.isError && <ErrorState error={act.error} />}
      </div>
    );
  if (state !== 'shown') return null;
  return (
    <div className="actions">
      <button type="button" className="btn btn-small" disabled={act.isPending || act.isSuccess} onClick={() => act.mutate('report')}>
        {act.isSuccess ? 'Reported' : 'Report thesis'}
      </button>
      {act.isSuccess && (
        <p className="small muted" role="status">
          Thank you. Reports from verified members with a ranked bet count toward hiding it.
        </p>
      )}
      {act.isError && <ErrorState error={act.error} />}
    </div>
  );
}
