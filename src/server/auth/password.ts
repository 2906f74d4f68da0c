/**
 * Password hashing with argon2id (DECISIONS 4). Plain passwords are never stored or compared.
 */
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
