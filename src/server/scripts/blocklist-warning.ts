/**
 * The start-up warning about a PUBLIC_ORIGIN that ad blockers block (domain/blocklist-names.ts):
 * dealer sites load the script, banner images and beacons from PUBLIC_ORIGIN, so a host such as
 * `banners.example.com` or a path prefix such as `/ads` loses all three on every shopper's browser
 * that runs EasyList or AdGuard's lists. One warn line per matching rule, written once per
 * deployment start (the single process, or the cluster primary: app.ts, cluster.ts).
 */
import cluster from 'node:cluster';
import { deploymentBlocklistMatches } from '../../domain/blocklist-names';

/** Where the warning goes: pino's `warn(obj, msg)` or the cluster primary's logger. */
export type WarnLine = (obj: Record<string, unknown>, msg: string) => void;

/**
 * Logs a warn line for each generic filter rule PUBLIC_ORIGIN matches, naming the rule, its lists
 * and what to rename.
 * A cluster worker writes nothing: its primary wrote the lines once for all of them.
 * @param publicOrigin PUBLIC_ORIGIN (config.publicOrigin)
 * @returns the number of lines written (0 when the name passes, or in a cluster worker)
 */
export function warnOfBlockedPublicOrigin(publicOrigin: string, warn: WarnLine): number {
  if (cluster.isWorker) return 0;
  const matches = deploymentBlocklistMatches(publicOrigin);
  for (const m of matches) {
    warn(
      { publicOrigin, rule: m.rule, lists: m.lists, blockedName: m.name },
      `PUBLIC_ORIGIN ${publicOrigin} matches the ad-blocker rule \`${m.rule}\` (${m.lists}): shoppers with an ad blocker get no script, banners or beacons. ${m.why}`,
    );
  }
  return matches.length;
}
