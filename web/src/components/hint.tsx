// A short explanation shown where an idea of the game is first met (LONG and
// SHORT, the cancel window, Tail and Fade, points and alpha), dismissed once
// with "Got it" and remembered in this browser (lib/hints.ts).
import { type ReactNode, useState } from 'react';
import { dismissHint, type HintId, isHintDismissed } from '../lib/hints';

export function Hint({ id, title, children }: { id: HintId; title: string; children: ReactNode }) {
  const [hidden, setHidden] = useState(() => isHintDismissed(id));
  if (hidden) return null;
  return (
    <div className="alert alert-info hint-box" data-testid={`hint-${id}`}>
      <span className="hint-text">
        <strong>{title}</strong> {children}
      </span>
      <button
        type="button"
        className="btn btn-small"
        onClick={() => {
          dismissHint(id);
          setHidden(true);
          // The button goes away with the hint: focus stays in the page's content, not on <body>.
          document.getElementById('main')?.focus({ preventScroll: true });
        }}
      >
        Got it<span className="sr-only">: {title}</span>
      </button>
    </div>
  );
}

/** Tail and Fade, explained once wherever another trader's open bet offers them. */
export function TailFadeHint() {
  return (
    <Hint id="tail-fade" title="Tail or Fade?">
      Tail opens the same bet as this trader's (same ticker and direction) for you, at the current price; Fade opens the opposite direction. Either
      becomes your own bet, scored from its own entry price, and the trader sees how the bets that tailed them do.
    </Hint>
  );
}
