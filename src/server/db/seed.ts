/**
 * Demo data: the manufacturer catalogue (spec 01 §3), one active Honda dealer on mxs with all
 * default settings (spec 01 §9), and the three demo accounts (DECISIONS 4). Runs only on an
 * empty database, so restarting never overwrites a user's changes.
 */
import { count } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Db } from './client';
import { dealers, manufacturers, users } from './schema';
import { CATALOGUE } from './seed-catalogue';
import { hashPassword } from '../auth/password';
import { DEMO_ACCOUNTS, DEMO_DEALER, DEMO_LOCAL_DOMAINS } from '../../domain/demo';
import { newDealerRow } from './dealer-row';

/** The demo facts (domain/demo.ts), re-exported for the seed's callers and tests. */
export { DEMO_ACCOUNTS, DEMO_DEALER, DEMO_LOCAL_DOMAINS };

/** Inserts the manufacturer catalogue (idempotent per manufacturer id). */
export async function seedCatalogue(db: Db): Promise<void> {
  await db
    .insert(manufacturers)
    .values(CATALOGUE.map((m) => ({ ...m })))
    .onConflictDoNothing();
}

/**
 * Seeds catalogue, demo dealer and demo accounts when the database has no users.
 * @param opts.hashPassword how the demo passwords are hashed (default argon2id, auth/password.ts);
 *   tests pass precomputed argon2id hashes so they do not hash in every file.
 * @returns true when it seeded, false when data already existed.
 */
export async function seedDemoData(db: Db, opts: { hashPassword?: (password: string) => Promise<string> } = {}): Promise<boolean> {
  const [existing] = await db.select({ n: count() }).from(users);
  if (existing && existing.n > 0) return false;
  const hash = opts.hashPassword ?? hashPassword;
  const hashes = await Promise.all(DEMO_ACCOUNTS.map((a) => hash(a.password)));
  await db.transaction(async (tx) => {
    await seedCatalogue(tx);
    const honda = CATALOGUE.find((m) => m.id === DEMO_DEALER.manufacturer);
    if (!honda) throw new Error('Seed catalogue has no Honda');
    const demo = newDealerRow(DEMO_DEALER, honda);
    // The demo dealer also allows this machine, so its script can be tried on a local test page.
    demo.security = { ...demo.security!, allowedDomains: [...demo.security!.allowedDomains, ...DEMO_LOCAL_DOMAINS] };
    await tx.insert(dealers).values(demo).onConflictDoNothing();
    await tx.insert(users).values(
      DEMO_ACCOUNTS.map((a, i) => ({
        id: randomUUID(),
        email: a.email,
        name: a.name,
        role: a.role,
        dealerId: a.dealerId,
        passwordHash: hashes[i]!,
        demoPassword: true, // listed on the sign-in hint until the password changes
      })),
    );
  });
  return true;
}
