/** Contract of the sign-in routes (spec 01 §2, §5; DECISIONS 4): login, me, demo accounts. */
import { z } from 'zod';
import { loginBodySchema, roleSchema, sessionUserSchema } from '../schemas';

export { loginBodySchema };
/** POST /api/auth/login: the signed-in user (and the session cookie). */
export const loginAnswerSchema = z.object({ user: sessionUserSchema });
/** GET /api/auth/me: the session's user, null when signed out. */
export const meAnswerSchema = z.object({ user: sessionUserSchema.nullable() });
/** GET /api/auth/demo-accounts: the sign-in hint while SEED_DEMO is on, else empty. */
export const demoAccountsSchema = z.object({ accounts: z.array(z.object({ email: z.string(), password: z.string(), role: roleSchema })) });
export type DemoAccounts = z.infer<typeof demoAccountsSchema>;
