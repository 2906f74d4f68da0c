/**
 * Password hashing with argon2id (DECISIONS 4). Plain passwords are never stored or compared.
 */
import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';

/** Hashes a password; returns the encoded argon2id hash string. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** True when `password` matches the encoded hash; false for a malformed hash. */
export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * An argon2id hash of a random secret nobody knows, with the same parameters as real hashes:
 * sign-ins for unknown emails are verified against it, so they cost the same argon2 work as real
 * accounts. Made once per process on the first call, in the background (a process-lifetime
 * constant: every app in the process may share it, and it is never stored or sent).
 */
export function dummyPasswordHash(): Promise<string> {
  if (!dummyHash) {
    dummyHash = hashPassword(randomBytes(32).toString('base64url'));
    // Marks the promise handled; login awaits it and sees the error there.
    dummyHash.catch(() => undefined);
  }
  return dummyHash;
}
