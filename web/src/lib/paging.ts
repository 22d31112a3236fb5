import { useSearchParams } from 'react-router-dom';

export const PAGE_SIZE = 20;
/** The leaderboard's page: SPEC's top 100, then the next hundreds. */
export const LEADERBOARD_PAGE = 100;
/** The deepest offset the API pages to (SPEC's bound on offsets). */
export const MAX_OFFSET = 10_000;

/** The page offset lives in the URL, so pages are linkable and Back works. */
export function useOffset(): [number, (offset: number) => void] {
  const [params, setParams] = useSearchParams();
  const raw = Number(params.get('offset') ?? 0);
  const offset = Number.isInteger(raw) && raw >= 0 && raw <= MAX_OFFSET ? raw : 0;
  const set = (next: number) =>
    setParams((p) => {
      const copy = new URLSearchParams(p);
      if (next === 0) copy.delete('offset');
      else copy.set('offset', String(next));
      return copy;
    });
  return [offset, set];
}
