/**
 * Creates an admin account on the configured database, for the first admin of a production
 * deployment (where SEED_DEMO is off and there is no demo admin):
 *
 *   ADMIN_PASSWORD=... npm run admin:create -- --email someone@example.com [--name "Sam Admin"]
 *   node dist/server/admin-create.js --email ...   (the compiled form, built by `npm run build`)
 *
 * The database is the server's (DATABASE_URL with DATABASE_SCHEMA, or the PGlite DATA_DIR; the
 * same environment and config loading as the server), migrated first when needed. The password
 * comes from ADMIN_PASSWORD or, when stdin is a terminal, from a prompt that does not echo it (asked
 * twice); it is never printed or logged. The account is checked and created as POST
 * /api/admin/users does (createUserSchema: a valid email, a name, a password of at least
 * MIN_PASSWORD_LENGTH characters; an argon2id hash; refused when the email exists).
 * Exit code 0 when created, 1 with a one-line reason on stderr otherwise (2 for bad arguments).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/server/config';
import { openDatabase } from '../src/server/db/client';
import { createUser, createUserSchema } from '../src/server/admin/users';
import { issuesMessage } from '../src/server/validation';
import { AppError } from '../src/server/errors';

const USAGE = 'usage: npm run admin:create -- --email someone@example.com [--name "Full Name"] (password from ADMIN_PASSWORD or a prompt)';

/** A failure to report as one line and exit with `code`. */
class Refusal extends Error {
  constructor(
    message: string,
    readonly code = 1,
  ) {
    super(message);
  }
}

/**
 * Reads one line from the terminal on stdin without echoing it (raw mode); Ctrl-C or Ctrl-D before
 * Enter refuses. @returns the line without its end.
 */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    stdin.setRawMode(true); // before the question, so nothing typed after it is echoed
    process.stderr.write(question);
    stdin.resume();
    stdin.setEncoding('utf8');
    let line = '';
    const done = (err: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(null);
        if (ch === '\u0003' || ch === '\u0004') return done(new Refusal('cancelled'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else if (ch >= ' ') line += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The password: ADMIN_PASSWORD, else a hidden prompt (twice) when stdin is a terminal. @throws Refusal. */
async function readPassword(): Promise<string> {
  const fromEnv = process.env.ADMIN_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!process.stdin.isTTY) throw new Refusal('no password: set ADMIN_PASSWORD, or run in a terminal to be asked for it');
  const first = await promptHidden('Password for the new admin: ');
  const again = await promptHidden('The same password again: ');
  if (first !== again) throw new Refusal('the two passwords differ; nothing was created');
  return first;
}

async function main(): Promise<void> {
  let values: { email?: string; name?: string };
  try {
    ({ values } = parseArgs({ options: { email: { type: 'string' }, name: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new Refusal(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (!values.email) throw new Refusal(`--email is required\n${USAGE}`, 2);
  const password = await readPassword();
  const parsed = createUserSchema.safeParse({ email: values.email, name: values.name ?? 'Administrator', role: 'admin', dealerId: null, password });
  if (!parsed.success) throw new Refusal(`refused: ${issuesMessage(parsed.error)}`);

  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, schemaName: config.databaseSchema, dataDir: config.dataDir });
  try {
    await database.withStartupLock(() => database.migrate());
    const user = await createUser(database.db, parsed.data);
    process.stdout.write(`Admin ${user.email} created (id ${user.id}); sign in with the password you gave.\n`);
  } catch (err) {
    if (err instanceof AppError) throw new Refusal(`refused: ${err.message}`);
    throw err;
  } finally {
    await database.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    const message = err instanceof Refusal ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`admin:create: ${message}\n`);
    process.exit(err instanceof Refusal ? err.code : 1);
  },
);
