/**
 * PostgreSQL that comes and goes: the classifier that tells "database unavailable"
 * from a bug, the 503 the error handler answers for it (through app.inject, on PGlite or on
 * PostgreSQL), and the start-up error for an unreachable server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { DrizzleQueryError, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import {
  DATABASE_UNAVAILABLE_MESSAGE,
  databaseConnectError,
  databaseUnavailability,
  databaseUnavailableMessage,
  describeDatabaseTarget,
  isDatabaseUnavailable,
} from './availability';
import { openDatabase } from './client';
import { openTestDatabase, cookieHeader, failingDb } from '../test-app';
import { loadConfig } from '../config';
import { buildApp } from '../app';

/** A pg-style error: message plus SQLSTATE or Node code. */
const pgError = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
/** The same error as Drizzle throws it: wrapped, with the query text and parameters in the message. */
const wrapped = (cause: Error) => new DrizzleQueryError('select "id" from "sessions" where "id" = $1', ['secret-session-id'], cause);

describe('databaseUnavailability', () => {
  it.each([
    ['ECONNREFUSED', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['ECONNRESET', pgError('read ECONNRESET', 'ECONNRESET')],
    ['ETIMEDOUT', pgError('connect ETIMEDOUT 10.0.0.1:5432', 'ETIMEDOUT')],
    ['EPIPE', pgError('write EPIPE', 'EPIPE')],
    ['Connection terminated unexpectedly', pgError('Connection terminated unexpectedly')],
    ['pool connect timeout', pgError('timeout exceeded when trying to connect')],
    ['client connect timeout', pgError('Connection terminated due to connection timeout')],
    ['a dead client', pgError('Client has encountered a connection error and is not queryable')],
    ['08006 connection failure', pgError('connection failure', '08006')],
    ['08P01 protocol violation', pgError('protocol violation', '08P01')],
    ['57P01 admin shutdown', pgError('terminating connection due to administrator command', '57P01')],
    ['57P02 crash shutdown', pgError('terminating connection due to crash of another server process', '57P02')],
    ['57P03 cannot connect now', pgError('the database system is starting up', '57P03')],
    ['53300 too many connections', pgError('sorry, too many clients already', '53300')],
  ])('%s is a connection failure, also wrapped by Drizzle', (_name, err) => {
    expect(databaseUnavailability(err)).toEqual({ kind: 'connection', code: (err as { code?: string }).code, reason: err.message });
    expect(databaseUnavailability(wrapped(err))).toEqual({ kind: 'connection', code: (err as { code?: string }).code, reason: err.message });
    expect(isDatabaseUnavailable(wrapped(err))).toBe(true);
  });

  it('reads the code and the messages of an AggregateError (one connection attempt per address)', () => {
    const err = Object.assign(
      new AggregateError([pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED'), pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')], ''),
      { code: 'ECONNREFUSED' },
    );
    expect(databaseUnavailability(err)).toEqual({
      kind: 'connection',
      code: 'ECONNREFUSED',
      reason: 'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    });
  });

  it.each([
    ['42P01 undefined table', pgError('relation "sessions" does not exist', '42P01')],
    ['3F000 invalid schema', pgError('schema "app" does not exist', '3F000')],
  ])('%s is a missing schema', (_name, err) => {
    expect(databaseUnavailability(wrapped(err))).toEqual({ kind: 'schema', code: (err as { code?: string }).code, reason: err.message });
  });

  it.each([
    ['a unique violation', wrapped(pgError('duplicate key value violates unique constraint "users_email"', '23505'))],
    ['a syntax error', wrapped(pgError('syntax error at or near "selct"', '42601'))],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a string', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_name, err) => {
    expect(databaseUnavailability(err)).toBeNull();
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('stops on cause cycles', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(databaseUnavailability(a)).toBeNull();
  });
});

describe('messages', () => {
  it('says "retry shortly", and names the schema and table for a missing schema', () => {
    expect(databaseUnavailableMessage({ kind: 'connection', code: 'ECONNREFUSED', reason: 'connect ECONNREFUSED 127.0.0.1:5432' }, 'app')).toBe(
      DATABASE_UNAVAILABLE_MESSAGE,
    );
    const missing = { kind: 'schema' as const, code: '42P01', reason: 'relation "sessions" does not exist' };
    expect(databaseUnavailableMessage(missing, 'app')).toBe('Database schema "app" unavailable: relation "sessions" does not exist; please retry shortly');
    expect(databaseUnavailableMessage(missing)).toBe('Database schema unavailable: relation "sessions" does not exist; please retry shortly');
  });

  it('describes where a connection string points, without user or password', () => {
    expect(describeDatabaseTarget('postgres://alice:s3cret@db.example.com:6543/banners')).toBe('db.example.com:6543 (database "banners")');
    expect(describeDatabaseTarget('postgres://alice:s3cret@[::1]/banners')).toBe('[::1]:5432 (database "banners")');
    const err = databaseConnectError('postgres://alice:s3cret@127.0.0.1:1/test', pgError('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'));
    expect(err.message).toBe('Cannot connect to PostgreSQL at 127.0.0.1:1 (database "test"): connect ECONNREFUSED 127.0.0.1:1');
    expect(err.message).not.toContain('s3cret');
  });

  it('openDatabase on a closed port rejects naming host, port and the refusal', async () => {
    const opened = openDatabase({ databaseUrl: 'postgres://postgres:s3cret@127.0.0.1:1/test' });
    await expect(opened).rejects.toThrow('Cannot connect to PostgreSQL at 127.0.0.1:1 (database "test"): connect ECONNREFUSED 127.0.0.1:1');
    await expect(opened).rejects.not.toThrow(/s3cret/);
  });
});

describe('the error handler answers 503 while the database is unavailable', () => {
  let app: FastifyInstance;
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  let cookie: string;
  /** What every query of the app's db throws while set. */
  let failure: Error | null = null;

  beforeAll(async () => {
    database = await openTestDatabase({ seeded: true });
    const db = failingDb(database.db, () => failure);
    const config = loadConfig({
      FEED_SCHEDULER_INTERVAL_MS: '0',
      LOG_LEVEL: 'silent',
      WEB_DIST_DIR: path.resolve('dist/web'),
      EMBED_DIST_FILE: path.resolve('dist/embed/dc-banners.js'),
    });
    app = await buildApp({ config, db, logger: false });
    const res = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'manager@hondaofdemo.com', password: 'manager123' } });
    expect(res.statusCode).toBe(200);
    cookie = cookieHeader(res);
  });
  afterAll(async () => {
    failure = null;
    await app?.close();
    await database?.dispose();
  });

  const me = () => app.inject({ method: 'GET', url: '/api/auth/me', headers: { cookie } });

  it('maps a connection failure to 503 UNAVAILABLE with Retry-After, and recovers when it goes away', async () => {
    failure = wrapped(pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'));
    const down = await me();
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('5');
    expect(down.json()).toEqual({ error: { code: 'UNAVAILABLE', message: 'Database unavailable, please retry shortly' } });

    failure = wrapped(pgError('terminating connection due to administrator command', '57P01'));
    expect((await me()).statusCode).toBe(503);

    failure = null;
    expect((await me()).statusCode).toBe(200);
  });

  it('keeps other errors a 500 without details', async () => {
    failure = wrapped(pgError('syntax error at or near "selct"', '42601'));
    const res = await me();
    failure = null;
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'INTERNAL', message: 'Internal server error' } });
  });

  it('answers 503 naming the missing table while it is gone, and 200 again once it is back (same pool, no restart)', async () => {
    await database.db.execute(sql`ALTER TABLE sessions RENAME TO sessions_away`);
    try {
      const gone = await me();
      expect(gone.statusCode).toBe(503);
      expect(gone.headers['retry-after']).toBe('5');
      expect(gone.json()).toEqual({
        error: { code: 'UNAVAILABLE', message: 'Database schema unavailable: relation "sessions" does not exist; please retry shortly' },
      });
    } finally {
      await database.db.execute(sql`ALTER TABLE sessions_away RENAME TO sessions`);
    }
    expect((await me()).statusCode).toBe(200);
  });
});
