import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, callWrite, type PortfolioBet } from '../api/client';
import { useActionKeys } from '../lib/action-keys';
import { formatCountdown } from '../lib/format';
import { useNow } from '../lib/use-now';

export function useBetMutations() {
  const queryClient = useQueryClient();
  const refresh = () => {
    for (const key of ['portfolio', 'history', 'leaderboard', 'bet', 'me', 'stats', 'rankings', 'record'])
      void queryClient.invalidateQueries({ queryKey: [key] });
  };
  const keys = useActionKeys();
  const close = useMutation({
    mutationFn: (id: number) =>
      callWrite(keys.keyFor(['close', id]), (header) => api.POST('/bet/close', { params: { header }, body: { bet_id: id } })),
    onSettled: (_data, _error, id) => {
      keys.settled(['close', id]);
      refresh();
    },
  });
  const cancel = useMutation({
    mutationFn: (id: number) =>
      callWrite(keys.keyFor(['cancel', id]), (header) => api.DELETE('/bet/{bet_id}', { params: { header, path: { bet_id: id } } })),
    onSettled: (_data, _error, id) => {
      keys.settled(['cancel', id]);
      refresh();
    },
  });
  return { close, cancel };
}

/** Cancel while the window is open (with the time left), close always. */
export function BetActions({ bet, mutations }: { bet: PortfolioBet; mutations: ReturnType<typeof useBetMutations> }) {
  const now = useNow();
  const left = bet.cancelable_until ? Date.parse(bet.cancelable_until) - now : 0;
  const busy =
    (mutations.close.isPending && mutations.close.variables === bet.id) || (mutations.cancel.isPending && mutations.cancel.variables === bet.id);
  return (
    <div className="actions">
      {left > 0 && (
        <button
          type="button"
          className="btn btn-small"
          disabled={busy}
          onClick={() => mutations.cancel.mutate(bet.id)}
          aria-label={`Cancel bet ${bet.id} on ${bet.ticker}, ${formatCountdown(left)} left`}
        >
          Cancel <span className="num countdown">{formatCountdown(left)}</span>
        </button>
      )}
      <button
        type="button"
        className="btn btn-small btn-primary"
        disabled={busy}
        onClick={() => mutations.close.mutate(bet.id)}
        aria-label={`Close bet ${bet.id} on ${bet.ticker}`}
      >
        Close
      </button>
    </div>
  );
}
