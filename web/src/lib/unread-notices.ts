import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api/client';

/** The unread count the navigation shows; the Notices page updates it when it marks notices read. */
export function useUnreadNotices(enabled: boolean) {
  return useQuery({
    queryKey: ['notifications-unread'],
    queryFn: () => call(api.GET('/notifications/unread')),
    refetchInterval: 30_000,
    enabled,
  });
}
