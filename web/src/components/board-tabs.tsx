// The two boards of the Leaderboard page as links, the ranked one first: the
// board is in the URL (Back and shared links keep it), each is a plain link
// reached by Tab, and the one shown carries aria-current.
import { Link, useLocation } from 'react-router-dom';
import { type Board, BOARD_LABELS, boardSearch } from '../lib/scoring';

export function BoardTabs({ board }: { board: Board }) {
  const { pathname, search } = useLocation();
  const params = new URLSearchParams(search);
  return (
    <nav className="board-tabs" aria-label="Boards">
      {(['ranked', 'raw'] as const).map((b) => (
        <Link
          key={b}
          to={{ pathname, search: boardSearch(params, b) }}
          className={`board-tab ${b === board ? 'board-tab-active' : ''}`}
          aria-current={b === board ? 'page' : undefined}
          data-testid={`board-tab-${b}`}
        >
          {BOARD_LABELS[b]}
        </Link>
      ))}
    </nav>
  );
}

/** The link every board carries to the page that explains it. */
export function ScoringLink({ children = 'How scoring works' }: { children?: string }) {
  return (
    <Link to="/scoring" data-testid="scoring-link">
      {children}
    </Link>
  );
}
