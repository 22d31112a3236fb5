// The one error type of the service. Domain code throws AppError; the HTTP
// layer maps it to a status and to one of SPEC part 7's body shapes.

export type ErrorBody = { error: string } | { error: 'LIMIT_REACHED'; message: string; limit: number } | { error: string; message: string };

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super('message' in body ? `${body.error}: ${body.message}` : body.error);
    this.name = 'AppError';
  }
}

export const badRequest = (error: string) => new AppError(400, { error });
export const unauthorized = (error = 'Authentication required') => new AppError(401, { error });
export const forbidden = (error: string) => new AppError(403, { error });
export const notFound = (error = 'Not found') => new AppError(404, { error });
export const conflict = (error: string) => new AppError(409, { error });
export const internal = (error = 'Internal server error') => new AppError(500, { error });
export const limitReached = (message: string, limit: number) => new AppError(403, { error: 'LIMIT_REACHED', message, limit });
export const cancelWindowExpired = (message: string) => new AppError(403, { error: 'CANCEL_WINDOW_EXPIRED', message });
export const serviceUnavailable = (error: string, retryAfterSeconds: number) =>
  new AppError(503, { error }, { 'retry-after': String(retryAfterSeconds) });
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, { error: 'Too many requests, retry later' }, { 'retry-after': String(retryAfterSeconds) });
