// The first-visit hints: which ones a reader has dismissed, kept in this
// browser's localStorage so a hint explains a word the first time it is met
// and then stays out of the way. Storage can be absent or refuse writes
// (private modes, quotas): a hint then simply shows again next time.

/** The hints the app has, each explaining one idea where it is first met. */
export type HintId = 'direction' | 'cancel-window' | 'tail-fade' | 'alpha-points';

const KEY = 'hints-dismissed';

function read(): Set<string> {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return new Set(Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}

export function isHintDismissed(id: HintId): boolean {
  return read().has(id);
}

export function dismissHint(id: HintId): void {
  const seen = read();
  seen.add(id);
  try {
    localStorage.setItem(KEY, JSON.stringify([...seen]));
  } catch {
    // Not remembered: the hint shows again on the next visit, which is harmless.
  }
}
