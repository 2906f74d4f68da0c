/**
 * The small set of typed errors services throw, each mapped to one HTTP status and a JSON body
 * `{ error: { code, message } }` by the app's single error handler (ARCHITECTURE "Errors").
 */
export type ErrorCode =
  | 'NOT_FOUND'
  | 'FORBIDDEN'
  | 'UNAUTHORIZED'
  | 'INVALID'
  | 'CONFLICT'
  | 'QUOTA_EXCEEDED'
  | 'PAYLOAD_TOO_LARGE'
  | 'OVER_LIMIT'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INSUFFICIENT_STORAGE';

const STATUS: Record<ErrorCode, number> = {
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHORIZED: 401,
  INVALID: 400,
  CONFLICT: 409,
  QUOTA_EXCEEDED: 413,
  PAYLOAD_TOO_LARGE: 413,
  OVER_LIMIT: 422,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
};

/** Base class: an error whose message is safe to show to the user. */
export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.statusCode = STATUS[code];
  }
}

export class NotFound extends AppError {
  constructor(message = 'Not found') {
    super('NOT_FOUND', message);
  }
}
export class Forbidden extends AppError {
  constructor(message = 'You do not have permission to do this') {
    super('FORBIDDEN', message);
  }
}
export class Unauthorized extends AppError {
  constructor(message = 'Sign in required') {
    super('UNAUTHORIZED', message);
  }
}
export class Invalid extends AppError {
  constructor(message: string) {
    super('INVALID', message);
  }
}
export class Conflict extends AppError {
  constructor(message: string) {
    super('CONFLICT', message);
  }
}
export class QuotaExceeded extends AppError {
  constructor(message: string) {
    super('QUOTA_EXCEEDED', message);
  }
}
/** 413: the request itself is over a size or count limit, named in the message (not the dealer's storage quota). */
export class PayloadTooLarge extends AppError {
  constructor(message: string) {
    super('PAYLOAD_TOO_LARGE', message);
  }
}
/** 422: well-formed input past a count or length limit other than its size (rows, columns, cell or line length), named in the message. */
export class OverLimit extends AppError {
  constructor(message: string) {
    super('OVER_LIMIT', message);
  }
}
/** The 429 text of the request-rate limits (the global limit and the beacon limits). */
export const TOO_MANY_REQUESTS = 'Too many requests, please try again later';
/**
 * 429 with a message saying when to try again, e.g. the login route's 'Too many attempts, try again
 * in N minutes'; the error handler adds `Retry-After: retryAfterSeconds`.
 */
export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}
/** 507: the PGlite data directory is (nearly) out of disk space, so changes are refused (src/server/db/disk-guard.ts). */
export class InsufficientStorage extends AppError {
  constructor(message = 'The server is out of disk space; changes are refused until space is freed') {
    super('INSUFFICIENT_STORAGE', message);
  }
}
