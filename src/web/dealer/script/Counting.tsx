/**
 * "Where banners are counted" (spec 02 §2 Script; README "Installing the tag on a dealer site"): shown on
 * the dealer's Script page and on the admin's script page for a dealer.
 */
import { Link } from 'react-router';
import { Anchor, Code, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import type { ScriptInfo } from './api';

/**
 * Where banners are counted: the dealer's allowed domains with how www. and the bare domain
 * match, the HTTPS rule, and what one page view counts. Read-only on the dealer's Script page (an
 * admin edits the list in the dealer's security settings); on the admin's script page `editHref`
 * links to those settings.
 */
export function Counting({ info, editHref }: { info: ScriptInfo | undefined; editHref?: string }) {
  const security = info?.security;
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Where banners are counted">
      <Title order={3} size="h4" mb="xs">
        Where banners are counted
      </Title>
      {!security ? (
        <Skeleton h={60} />
      ) : (
        <Stack gap="xs">
          {security.enableCors && security.allowedDomains.length > 0 ? (
            <>
              <Text size="sm">
                Allowed domains:{' '}
                {security.allowedDomains.map((domain, i) => (
                  <span key={domain}>
                    {i > 0 && ', '}
                    <Code>{domain}</Code>
                  </span>
                ))}
              </Text>
              <Text size="sm" c="dimmed">
                A domain covers its subdomains: <Code>example.com</Code> covers <Code>www.example.com</Code>, but <Code>www.example.com</Code> does not cover
                the bare <Code>example.com</Code>; if your site also answers without <Code>www.</Code>, list the bare domain.{' '}
                {editHref
                  ? 'Add a new or staging domain before its pages go live.'
                  : 'Only an administrator can change this list (dealer settings, Security): ask yours to add a new or staging domain.'}{' '}
                On other hosts the banners still show but nothing is counted, and the browser console says why.
              </Text>
            </>
          ) : (
            <Text size="sm">Domain checks are off: pages on any domain are counted.</Text>
          )}
          {editHref && (
            <Anchor component={Link} to={editHref} size="sm" w="fit-content">
              Edit allowed domains
            </Anchor>
          )}
          {security.requireHttps && (
            <Text size="sm" c="dimmed">
              Only pages served over HTTPS are counted.
            </Text>
          )}
          <Text size="sm" c="dimmed">
            One page view counts each banner at most once. A page view is one search page address (its path, model and trim): when your site reloads the
            listing in place (&quot;page 2&quot;, &quot;load more&quot;, a new sort order) or its framework draws the banner again, it stays the same page view
            and nothing is counted twice; another model, trim or page, or a reload, is a new page view.
          </Text>
        </Stack>
      )}
    </Paper>
  );
}
