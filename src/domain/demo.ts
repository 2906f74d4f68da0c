/**
 * The demo data's facts (spec 01 §9, DECISIONS 4): the demo dealer and the three demo
 * accounts. Plain data in domain so the seed (server/db/seed.ts) that writes them and the sign-in
 * hint (server/auth/routes.ts) that lists them share one copy without a feature importing the
 * seed module.
 */
import type { Role } from './schemas';

/** The demo dealer: one active Honda dealer on mxs (spec 01 §9). */
export const DEMO_DEALER = {
  id: 'honda-of-demo',
  name: 'Honda of Demo',
  manufacturer: 'honda',
  websiteUrl: 'https://www.hondaofdemo.com',
  provider: 'mxs',
  status: 'active',
} as const;

/** Hosts the demo dealer allows besides its website, for trying the embed script locally. */
export const DEMO_LOCAL_DOMAINS = ['localhost', '127.0.0.1'];

/**
 * Demo accounts; their passwords are public by design and listed on the sign-in screen while
 * SEED_DEMO is on and the account still has this password (users.demo_password).
 */
export const DEMO_ACCOUNTS: ReadonlyArray<{ email: string; password: string; role: Role; name: string; dealerId: string | null }> = [
  { email: 'admin@dc-banners.com', password: 'admin123', role: 'admin', name: 'Alex Admin', dealerId: null },
  { email: 'manager@hondaofdemo.com', password: 'manager123', role: 'dealer-manager', name: 'Morgan Manager', dealerId: DEMO_DEALER.id },
  { email: 'viewer@hondaofdemo.com', password: 'viewer123', role: 'viewer', name: 'Val Viewer', dealerId: DEMO_DEALER.id },
];
