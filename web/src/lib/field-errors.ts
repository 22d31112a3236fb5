import { ApiError, errorMessage } from '../api/client';

/** Puts an API error next to the field it names; the rest is a form error. */
export function fieldErrors<F extends string>(err: unknown, fields: readonly F[]): { fields: Partial<Record<F, string>>; form: string | null } {
  const message = errorMessage(err);
  if (err instanceof ApiError && (err.status === 400 || err.status === 409)) {
    const lower = message.toLowerCase();
    const hit = fields.filter((f) => new RegExp(`\\b${f}\\b`).test(lower));
    if (hit.length === 1) return { fields: { [hit[0]]: message } as Partial<Record<F, string>>, form: null };
  }
  return { fields: {}, form: message };
}
