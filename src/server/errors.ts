/**
 * The small set of typed errors services throw, each mapped to one HTTP status and a JSON body
 * `{ error: { code, message } }` by the app's single error handler (ARCHITECTURE "Errors"); a 400
 * `Invalid` also carries `fields`, one `{ path, code, message }` per problem (domain/field-errors.ts).
 */
import { sentence, type FieldIssue } from '../domain/field-errors';

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
/**
 * 400: the input is refused. `message` names what was wrong for a person or a log ('name: must be a
 * single line …'); `fields` are the same problems for a program, one per field (empty when the
 * problem is not about one field: a malformed upload, a feed that failed).
 */
export class Invalid extends AppError {
  constructor(
    message: string,
    readonly fields: readonly FieldIssue[] = [],
  ) {
    super('INVALID', message);
  }

  /**
   * A refusal of one field: message `${path}: ${problem}`, one field problem `{ path, code, message: problem as a sentence }`.
   * `code` is the kind of problem ('custom' unless the caller names one, e.g. 'unknown_reference').
   */
  static field(path: string, problem: string, code = 'custom'): Invalid {
    return new Invalid(`${path}: ${problem}`, [{ path, code, message: sentence(problem) }]);
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

/** The JSON error body of an AppError: `{ code, message }`, plus `fields` for a 400 `Invalid` (docs/API.md "Errors"). */
export function errorBody(error: AppError): { code: ErrorCode; message: string; fields?: FieldIssue[] } {
  return error instanceof Invalid ? { code: error.code, message: error.message, fields: [...error.fields] } : { code: error.code, message: error.message };
}
