/**
 * Is this error "the database is not there right now" rather than a bug? ('PostgreSQL
 * that comes and goes'). One classifier, used by the app's error handler (503 + Retry-After
 * instead of a 500 stack) and by background writers that should keep their work and retry.
 *
 * Two kinds:
 * - connection: the server cannot be reached or dropped us: socket errors (ECONNREFUSED,
 *   ECONNRESET, ETIMEDOUT, EPIPE, ...), node-postgres' "Connection terminated ...", the pool's
 *   connect timeout, SQLSTATE class 08 (connection exception), 57P01/57P02/57P03 (admin
 *   shutdown, crash shutdown, cannot connect now) and 53300 (too many connections).
 * - schema: the server answers but our tables are gone: 3F000 (invalid schema name) and 42P01
 *   (undefined table), e.g. DATABASE_SCHEMA dropped or renamed under a running server. Once it
 *   exists again the next query finds it (no plan or search_path is cached across statements);
 *   nothing here recreates it.
 */
import pg from 'pg';

export type DatabaseUnavailableKind = 'connection' | 'schema';

export interface DatabaseUnavailable {
  kind: DatabaseUnavailableKind;
  /** The SQLSTATE or Node error code, when the error has one. */
  code: string | undefined;
  /** The driver's or server's own words (no query text, no parameters), e.g. `relation "sessions" does not exist`. */
  reason: string;
}

/** Seconds a client is asked to wait (Retry-After) when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The 503 message for a connection-level failure. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'Database unavailable, please retry shortly';

/** Node socket and DNS error codes that mean "cannot reach the server" or "it dropped us". */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs outside class 08 that mean the server will not serve us right now. */
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** SQLSTATEs that mean our schema or one of its tables is missing. */
const SCHEMA_SQLSTATES = new Set(['3F000', '42P01']);
/** node-postgres and pg-pool messages for a lost or unobtainable connection (they carry no code). */
const CONNECTION_MESSAGES = [/^Connection terminated/, /timeout exceeded when trying to connect/, /is not queryable/];

/** How many `cause` links are followed (Drizzle wraps driver errors in DrizzleQueryError). */
const MAX_CAUSE_DEPTH = 8;

/**
 * An error and the errors it wraps through `cause` (Drizzle puts the driver's error there),
 * outermost first, at most MAX_CAUSE_DEPTH; [] for a thrown non-object. Never throws.
 */
export function causeChain(err: unknown): object[] {
  const chain: object[] = [];
  for (let e = err; e && typeof e === 'object' && chain.length < MAX_CAUSE_DEPTH; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

function messageOf(err: object): string {
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && message) return message;
  // net's AggregateError (one attempt per resolved address) has an empty message.
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.map((e) => (e && typeof e === 'object' ? messageOf(e) : String(e))).join('; ');
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : String(err);
}

function classifyOne(err: object): DatabaseUnavailable | null {
  const rawCode = (err as { code?: unknown }).code;
  const code = typeof rawCode === 'string' ? rawCode : undefined;
  const reason = messageOf(err);
  if (code && (NETWORK_CODES.has(code) || CONNECTION_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
    return { kind: 'connection', code, reason };
  }
  if (code && SCHEMA_SQLSTATES.has(code)) return { kind: 'schema', code, reason };
  if (!code && CONNECTION_MESSAGES.some((re) => re.test(reason))) return { kind: 'connection', code, reason };
  return null;
}

/**
 * Classifies an error thrown by a database call.
 * @param err anything thrown: a pg DatabaseError, a Node socket error, an AggregateError of
 *   them, or any of these wrapped (`cause`) by Drizzle's DrizzleQueryError.
 * @returns what kind of unavailability it is, or null when it is an ordinary error (a bug, a
 *   constraint violation, ...) that should stay a 500. Never throws.
 */
export function databaseUnavailability(err: unknown): DatabaseUnavailable | null {
  for (const current of causeChain(err)) {
    const found = classifyOne(current);
    if (found) return found;
    const inner = (current as { errors?: unknown }).errors;
    if (Array.isArray(inner)) {
      for (const e of inner) {
        const innerFound = e && typeof e === 'object' ? classifyOne(e) : null;
        if (innerFound) return innerFound;
      }
    }
  }
  return null;
}

/** True when `err` means the database is unreachable or our schema is missing (see databaseUnavailability). */
export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseUnavailability(err) !== null;
}

/**
 * The message a client gets with the 503.
 * @param u the classification.
 * @param schemaName the configured DATABASE_SCHEMA, named in the schema case when set.
 * @returns 'Database unavailable, please retry shortly' for connection failures; for a missing
 *   schema or table e.g. `Database schema "app" unavailable: relation "sessions" does not exist; please retry shortly`.
 */
export function databaseUnavailableMessage(u: DatabaseUnavailable, schemaName?: string): string {
  if (u.kind === 'connection') return DATABASE_UNAVAILABLE_MESSAGE;
  const schema = schemaName ? ` "${schemaName}"` : '';
  return `Database schema${schema} unavailable: ${u.reason}; please retry shortly`;
}

/**
 * Where a connection string points, resolved the way node-postgres resolves it (URL, `host`/`port`
 * query parameters, PGHOST/PGPORT/PGDATABASE, defaults), without the user or password.
 * @returns e.g. `127.0.0.1:5432 (database "test")`; IPv6 hosts in brackets.
 */
export function describeDatabaseTarget(databaseUrl: string): string {
  let host = '?';
  let port = '?';
  let database: string | undefined;
  try {
    const c = new pg.Client({ connectionString: databaseUrl });
    host = String(c.host);
    port = String(c.port);
    database = c.database;
  } catch {
    /* an unparsable string: say so below rather than echo it (it may hold a password) */
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `${shownHost}:${port}${database ? ` (database "${database}")` : ''}`;
}

/**
 * The start-up error for a first connection that failed (name host, port and cause,
 * never the password).
 * @param databaseUrl the DATABASE_URL that was used.
 * @param cause what the driver threw; kept as `cause`.
 * @returns e.g. `Cannot connect to PostgreSQL at 127.0.0.1:1 (database "test"): connect ECONNREFUSED 127.0.0.1:1`.
 */
export function databaseConnectError(databaseUrl: string, cause: unknown): Error {
  const reason = cause && typeof cause === 'object' ? messageOf(cause) : String(cause);
  return new Error(`Cannot connect to PostgreSQL at ${describeDatabaseTarget(databaseUrl)}: ${reason}`, { cause });
}
