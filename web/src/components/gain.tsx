import { formatGain, gainClass } from '../lib/format';

export function Gain({ value }: { value: number }) {
  return <span className={`num ${gainClass(value)}`}>{formatGain(value)}</span>;
}

export function DirectionTag({ direction }: { direction: 'LONG' | 'SHORT' }) {
  return <span className={`tag tag-${direction.toLowerCase()}`}>{direction}</span>;
}

export function StatusTag({ status }: { status: string }) {
  return <span className={`tag tag-status-${status.toLowerCase()}`}>{status}</span>;
}
