// Every page names itself with its <h1>: the document's title follows that
// heading (its data-title when the visible text is not a good title), and a
// navigation inside the app moves the focus to it, so a screen reader
// announces the new page and Tab starts from its top, as after a full load.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';

export const SITE_NAME = 'Paper Bets';

function headingOf(main: HTMLElement): HTMLHeadingElement | null {
  return main.querySelector('h1');
}

function titleOf(h1: HTMLHeadingElement | null): string {
  const text = (h1?.dataset.title ?? h1?.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text === '' || text === SITE_NAME ? SITE_NAME : `${text} · ${SITE_NAME}`;
}

/** Keeps document.title on the page's heading; on a change of path, focuses the heading once it is there. */
export function usePageHeading(mainId: string): void {
  const { pathname } = useLocation();
  const first = useRef(true);

  // The title follows the heading as it renders and changes (a profile's name arrives after "Loading").
  useEffect(() => {
    const main = document.getElementById(mainId);
    if (!main) return;
    const sync = () => {
      const title = titleOf(headingOf(main));
      if (document.title !== title) document.title = title;
    };
    sync();
    const observer = new MutationObserver(sync);
    observer.observe(main, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-title'] });
    return () => observer.disconnect();
  }, [mainId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per change of path, the heading's page
  useEffect(() => {
    // A full load leaves the focus where the browser puts it; only navigations inside the app move it.
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById(mainId);
    if (!main) return;
    const focus = (h1: HTMLHeadingElement) => {
      h1.tabIndex = -1;
      h1.focus({ preventScroll: true });
    };
    // The heading may come a moment later (a page loaded on demand), or be
    // replaced once the page's data arrives ("Trader profile" → the name):
    // while the focus is nowhere (on the body), it goes to the heading there is.
    let focused = false;
    const settle = () => {
      const h1 = headingOf(main);
      if (!h1) return;
      if (!focused || document.activeElement === document.body || document.activeElement === null) {
        if (document.activeElement !== h1) focus(h1);
        focused = true;
      }
    };
    settle();
    const observer = new MutationObserver(settle);
    observer.observe(main, { subtree: true, childList: true });
    const timer = window.setTimeout(() => observer.disconnect(), 10_000);
    return () => {
      observer.disconnect();
      window.clearTimeout(timer);
    };
  }, [pathname, mainId]);
}
