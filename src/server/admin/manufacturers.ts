/**
 * Admin manufacturer management (spec 01 §2 Manufacturer Management, §3 Manufacturer and Model,
 * §5 Manufacturer form; DECISIONS 9): list with usage counts, create (id = slug of the name),
 * update including the catalogue (models and trims, default mappings, upsell rules, trim
 * patterns), and delete, refused while dealers use the manufacturer.
 */
import { count, eq } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { dealers, manufacturers } from '../db/schema';
import { providerSchema, type Manufacturer } from '../../domain/schemas';
import { slugify } from '../../domain/slug';
import { Conflict, Invalid, NotFound } from '../errors';
import type { ManufacturerListItem } from '../../domain/admin';
import type { ManufacturerInput } from '../../domain/contracts/admin';

// The request body: src/domain/contracts/admin.ts; re-exported for the import path.
export { manufacturerInputSchema } from '../../domain/contracts/admin';

function toManufacturer(row: typeof manufacturers.$inferSelect): Manufacturer {
  return {
    ...row,
    providerCompatibility: row.providerCompatibility.map((p) => providerSchema.parse(p)),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Every manufacturer by name, with its dealer count. */
export async function listManufacturers(db: Db): Promise<ManufacturerListItem[]> {
  const rows = await db.select().from(manufacturers).orderBy(manufacturers.name);
  const usage = await db.select({ id: dealers.manufacturerId, n: count() }).from(dealers).groupBy(dealers.manufacturerId);
  const byId = new Map(usage.map((u) => [u.id, u.n]));
  return rows.map((r) => ({ ...toManufacturer(r), dealerCount: byId.get(r.id) ?? 0 }));
}

async function getManufacturer(db: Db | Tx, id: string): Promise<Manufacturer> {
  const [row] = await db.select().from(manufacturers).where(eq(manufacturers.id, id));
  if (!row) throw new NotFound('Manufacturer not found');
  return toManufacturer(row);
}

/** Creates a manufacturer; id = slug of the name. @throws Invalid, Conflict (id taken). */
export async function createManufacturer(db: Db, input: ManufacturerInput): Promise<Manufacturer> {
  const id = slugify(input.name);
  if (!id) throw Invalid.field('name', 'must contain at least one letter or digit (the manufacturer id is made from it)');
  const inserted = await db.insert(manufacturers).values({ id, ...input }).onConflictDoNothing().returning();
  if (inserted.length === 0) throw new Conflict(`A manufacturer with the id "${id}" already exists.`);
  return toManufacturer(inserted[0]!);
}

/** Replaces a manufacturer's editable fields (the id stays). @throws NotFound. */
export async function updateManufacturer(db: Db, id: string, input: ManufacturerInput): Promise<Manufacturer> {
  const updated = await db
    .update(manufacturers)
    .set({ ...input, updatedAt: new Date() })
    .where(eq(manufacturers.id, id))
    .returning();
  if (updated.length === 0) throw new NotFound('Manufacturer not found');
  return toManufacturer(updated[0]!);
}

/** Deletes an unused manufacturer. @throws NotFound, Conflict naming how many dealers use it. */
export async function deleteManufacturer(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await getManufacturer(tx, id);
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(dealers).where(eq(dealers.manufacturerId, id));
    if (n > 0) throw new Conflict(`This manufacturer is used by ${n} dealer${n === 1 ? '' : 's'}; move or delete ${n === 1 ? 'it' : 'them'} first.`);
    await tx.delete(manufacturers).where(eq(manufacturers.id, id));
  });
}
