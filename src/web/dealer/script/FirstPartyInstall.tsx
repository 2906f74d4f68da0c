/**
 * "Serve from your own domain", on the dealer's Script page and the admin's dealer script page
 * (README "First-party install"): the tag with the dealer's own path (ScriptInfo.firstParty.tag)
 * and the reverse-proxy block for the dealer's web server (nginx), each copyable, and what the web
 * team and whoever runs the banner server must do, in plain words.
 */
import { Code, List } from '@mantine/core';
import type { ScriptInfo } from './api';
import { CopyField } from './CopyField';
import { InstallSection, InstallStep } from './InstallSteps';

/** The tag with the inline snippet's code left out (it is the code of the tag above, shown there): its two edits are what matter here. */
const abridged = (tag: string) => tag.replace(/^(<script[^>]*>)[\s\S]*?(<\/script>)/, '$1…the code of the tag above…$2');

/** The first-party install section for `install` (the script page's firstParty). */
export function FirstPartyInstall({ install }: { install: ScriptInfo['firstParty'] }) {
  return (
    <InstallSection
      title="Serve from your own domain"
      intro={
        <>
          Your web server can pass the banners through from a path of your own site, <Code>{install.path}/</Code>. Shoppers&apos; browsers then fetch
          the script, the banners and the counting requests from your site alone, which ad blockers leave alone more often.
        </>
      }
    >
      <InstallStep label={`1. On your web server: pass ${install.path}/ through to the banner server (nginx shown; any reverse proxy can do the same)`}>
        <CopyField value={install.proxy} label="proxy configuration" />
      </InstallStep>
      <InstallStep label="2. In your pages: this tag instead of the one above, first in the <head>">
        <CopyField value={install.tag} shown={abridged(install.tag)} label="first-party script tag" />
      </InstallStep>
      <List size="sm" c="dimmed" spacing={4}>
        <List.Item>The shortcodes, banner elements and the Content-Security-Policy hash stay as they are.</List.Item>
        <List.Item>Your site&apos;s cookies are not passed on: the banner server reads none.</List.Item>
        <List.Item>
          Give the addresses your web server connects from to whoever runs the banner server: they list them as a trusted proxy, so each shopper is
          counted within your request limits by their own address, not all of them as one.
        </List.Item>
      </List>
    </InstallSection>
  );
}
