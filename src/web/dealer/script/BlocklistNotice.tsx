/**
 * The Script page's warning (dealer and admin script pages) when an address the dealer's site will
 * request from this deployment (the script URL handed out, the banner images, the beacons) matches
 * a generic ad-blocker rule (domain/blocklist-names.ts): shoppers who run an ad blocker would then
 * see no banners at all. Renders nothing when every address passes.
 */
import { Alert, Code, List, Text } from '@mantine/core';
import { ShieldAlert } from 'lucide-react';
import { deploymentBlocklistMatches, publicAddresses } from '../../../domain/blocklist-names';

/**
 * PUBLIC_ORIGIN as the server built `scriptUrl` from it (publicAddresses), or the script URL's own
 * origin if it was built otherwise.
 */
export function originOfScriptUrl(scriptUrl: string, dealerId: string): string {
  const suffix = publicAddresses('', dealerId).script;
  if (scriptUrl.endsWith(suffix)) return scriptUrl.slice(0, -suffix.length);
  try {
    return new URL(scriptUrl).origin;
  } catch {
    return scriptUrl;
  }
}

/** A warning Alert naming each blocked name, its filter rule and what to rename; nothing when all pass. */
export function BlocklistNotice({ scriptUrl, dealerId }: { scriptUrl: string; dealerId: string }) {
  const matches = deploymentBlocklistMatches(originOfScriptUrl(scriptUrl, dealerId), dealerId);
  if (matches.length === 0) return null;
  return (
    <Alert color="yellow" variant="light" icon={<ShieldAlert size={18} />} title="Ad blockers will hide these banners" data-testid="blocklist-notice">
      <Text size="sm" mb="xs">
        Shoppers who run an ad blocker will not get the script, the banners or their counts from this address: the filter lists those blockers use block it by
        name alone. Whoever runs the banner server should rename it.
      </Text>
      <List size="sm" spacing={4}>
        {matches.map((m) => (
          <List.Item key={m.rule}>
            <Code>{m.url}</Code> matches the rule <Code>{m.rule}</Code> ({m.lists}). {m.why}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}
