import { useMutation } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { api, callWrite } from '../api/client';
import { useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { formatPrice } from '../lib/format';
import { LimitMessage } from './status';

/** Open the same bet (tail) or the opposite one (fade) as the caller. */
export function TailFade({ betId, ticker }: { betId: number; ticker: string }) {
  const invalidate = useInvalidate();
  const keys = useActionKeys();
  const copy = useMutation({
    mutationFn: (mode: 'tail' | 'fade') =>
      callWrite(keys.keyFor([mode, betId]), (header) => {
        const params = { params: { header, path: { bet_id: betId } } };
        return mode === 'tail' ? api.POST('/bet/{bet_id}/tail', params) : api.POST('/bet/{bet_id}/fade', params);
      }),
    onSettled: (_data, _error, mode) => keys.settled([mode, betId]),
    onSuccess: () => invalidate(queryKeys.portfolio),
  });
  return (
    <div className="tail-fade">
      <div className="actions">
        <button
          type="button"
          className="btn btn-small"
          disabled={copy.isPending}
          onClick={() => copy.mutate('tail')}
          aria-label={`Tail bet ${betId} on ${ticker}: open the same bet`}
        >
          Tail
        </button>
        <button
          type="button"
          className="btn btn-small"
          disabled={copy.isPending}
          onClick={() => copy.mutate('fade')}
          aria-label={`Fade bet ${betId} on ${ticker}: open the opposite bet`}
        >
          Fade
        </button>
      </div>
      {copy.isError && <LimitMessage error={copy.error} />}
      {copy.isSuccess && (
        <p className="alert alert-ok" role="status">
          Opened bet #{copy.data.bet_id} at <span className="num">{formatPrice(copy.data.entry_price)}</span>. <Link to="/portfolio">Portfolio</Link>
        </p>
      )}
    </div>
  );
}
