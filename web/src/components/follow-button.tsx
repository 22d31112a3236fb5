import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client';
import { useFollowing } from './layout';
import { LimitMessage } from './status';

export function FollowButton({ userId, username }: { userId: number; username: string }) {
  const queryClient = useQueryClient();
  const following = useFollowing();
  const isFollowing = following.data?.includes(userId) ?? false;
  const follow = useMutation({
    mutationFn: (action: 'follow' | 'unfollow') => call(api.POST('/follow', { body: { followed_id: userId, action } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['following'] });
      void queryClient.invalidateQueries({ queryKey: ['feed'] });
    },
  });
  if (following.isPending)
    return (
      <button type="button" className="btn btn-small" disabled>
        Follow
      </button>
    );
  return (
    <div className="follow">
      <button
        type="button"
        className={`btn btn-small ${isFollowing ? '' : 'btn-primary'}`}
        disabled={follow.isPending || following.isError}
        aria-pressed={isFollowing}
        aria-label={`${isFollowing ? 'Unfollow' : 'Follow'} ${username}`}
        onClick={() => follow.mutate(isFollowing ? 'unfollow' : 'follow')}
      >
        {isFollowing ? 'Unfollow' : 'Follow'}
      </button>
      {follow.isError && <LimitMessage error={follow.error} />}
    </div>
  );
}
