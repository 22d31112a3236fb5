import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call, type PortfolioBet } from '../api/client';
import { formatCountdown } from '../lib/format';
import { useNow } from '../lib/use-now';

export function useBetMutations() {
  const queryClient = useQueryClient();
  const refresh = () => {
    for (const key of ['portfolio', 'history', 'leaderboard', 'bet', 'me', 'stats', 'rankings', 'record'])
      void queryClient.invalidateQueries({ queryKey: [key] });
  };
  const close = useMutation({
    mutationFn: (id: number) => call(api.POST('/bet/close', { body: { bet_id: id } })),
    onSettled: refresh,
  });
  const cancel = useMutation({
    mutationFn: (id: number) => call(api.DELETE('/bet/{bet_id}', { params: { path: { bet_id: id } } })),
    onSettled: refresh,
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
