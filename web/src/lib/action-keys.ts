// One Idempotency-Key per user action: every send of the same action (the
// same write with the same arguments) until its answer arrives carries the
// same key, so a double click is one action at the server; once answered,
// the next click is a new action with a fresh key.
import { useRef } from 'react';
import { newIdempotencyKey } from '../api/client';

export interface ActionKeys {
  /** The key of the action named by `what` (any JSON value: the write and its arguments). */
  keyFor(what: unknown): string;
  /** The action's answer arrived: its next send is a new action. */
  settled(what: unknown): void;
}

export function useActionKeys(): ActionKeys {
  const keys = useRef(new Map<string, string>());
  const ref = useRef<ActionKeys>({
    keyFor(what) {
      const name = JSON.stringify(what) ?? '';
      let key = keys.current.get(name);
      if (key === undefined) {
        key = newIdempotencyKey();
        keys.current.set(name, key);
      }
      return key;
    },
    settled(what) {
      keys.current.delete(JSON.stringify(what) ?? '');
    },
  });
  return ref.current;
}
