import { useMutation } from '@tanstack/react-query';
import { api, callWrite } from '../api/client';
import { useFollowing, useInvalidate } from '../api/queries';
import { queryKeys } from '../api/query-keys';
import { useActionKeys } from '../lib/action-keys';
import { LimitMessage } from './status';

export function FollowButton({ userId, username }: { userId: number; username: string }) {
  const invalidate = useInvalidate();
  const following = useFollowing();
  const isFollowing = following.data?.includes(userId) ?? false;
  const keys = useActionKeys();
  const follow = useMutation({
    mutationFn: (action: 'follow' | 'unfollow') =>
      callWrite(keys.keyFor([action, userId]), (header) => api.POST('/follow', { params: { header }, body: { followed_id: userId, action } })),
    onSettled: (_data, _error, action) => keys.settled([action, userId]),
    onSuccess: () => invalidate(queryKeys.following, queryKeys.feed.all),
  });
  if (following.isPending)
    return (
      <button type="button" className="btn btn-small" disabled>
        Follow
      </button>
    );
  // The label says the action (Follow / Unfollow); aria-pressed on top of a label that flips would read as "Unfollow, pressed".
  return (
    <div className="follow">
      <button
        type="button"
        className={`btn btn-small ${isFollowing ? '' : 'btn-primary'}`}
        disabled={follow.isPending || following.isError}
        aria-label={`${isFollowing ? 'Unfollow' : 'Follow'} ${username}`}
        onClick={() => follow.mutate(isFollowing ? 'unfollow' : 'follow')}
      >
        {isFollowing ? 'Unfollow' : 'Follow'}
      </button>
      {follow.isError && <LimitMessage error={follow.error} />}
    </div>
  );
}
