import { useQuery } from '@tanstack/react-query';
import { api, ApiError, call, type User } from '../api/client';

export const meKey = ['me'] as const;

/** The logged-in user, or null when there is no session (401). */
export function useMe() {
  return useQuery<User | null>({
    queryKey: meKey,
    queryFn: async () => {
      try {
        return await call(api.GET('/me'));
      } catch (err) {
        if (err instanceof ApiError && (err.status === 401 || err.status === 404)) return null;
        throw err;
      }
    },
    staleTime: 30_000,
  });
}
