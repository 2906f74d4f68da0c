/**
 * "Install through a tag manager", on the dealer's Script page and the admin's dealer script page
 * (spec 02 §2 Script; README "Installing through a tag manager"): the Google Tag Manager Custom HTML
 * tag (the async script alone), the banner elements for the theme's templates and the CSS that
 * reserves their boxes, each copyable, and what this install trades away, in plain words. The
 * texts come from the script page API (ScriptInfo.tagManager), built from the dealer's sizes.
 */
import { List, Text } from '@mantine/core';
import type { ScriptInfo } from './api';
import { CopyField } from './CopyField';
import { InstallSection, InstallStep } from './InstallSteps';

/** The element's slot type: `<div data-dc-banner="header"></div>` -> 'header'. */
const elementType = (markup: string) => /data-dc-banner="([^"]+)"/.exec(markup)?.[1] ?? '';

/** The tag-manager install section for `install` (the script page's tagManager). */
export function TagManagerInstall({ install }: { install: ScriptInfo['tagManager'] }) {
  return (
    <InstallSection
      title="Install through a tag manager"
      intro={
        <>
          If your web team adds tags only through Google Tag Manager (or another tag manager), use these three parts instead of the tag and shortcodes
          above. A tag manager runs its tags after your page is first shown, too late to reserve the banners&apos; space, so your theme reserves it.
        </>
      }
    >
      <InstallStep label="1. In Google Tag Manager: a Custom HTML tag with this script, fired on All Pages">
        <CopyField value={install.tag} label="tag manager tag" />
      </InstallStep>
      <InstallStep label="2. In your search page template: an empty banner element where each banner goes">
        {install.markup.map((markup) => (
          <CopyField key={markup} value={markup} label={`${elementType(markup)} banner element`} />
        ))}
      </InstallStep>
      <InstallStep label="3. In your theme's stylesheet: these rules">
        <Text size="sm" c="dimmed">
          They reserve each banner&apos;s space at your banner sizes before the page is first shown, so nothing moves when the banners arrive. Copy them
          again after changing your banner sizes.
        </Text>
        <CopyField value={install.css} label="banner CSS" />
      </InstallStep>
      <InstallStep label="What this install trades away">
        <List size="sm" c="dimmed" spacing={4}>
          <List.Item>
            The banners appear a little later than with the tag above: they are requested when the tag manager runs, not while your page loads.
          </List.Item>
          <List.Item>
            If a shopper&apos;s ad blocker stops the tag manager, the reserved spaces stay empty. They are kept rather than closed, because closing them
            would make the page jump while the shopper reads it. Leave out the CSS if you prefer no empty space: the page then moves when the banners
            arrive.
          </List.Item>
          <List.Item>
            Put the banner elements on new-vehicle search pages only: on a page of a model without banners, the space closes once the script has run.
          </List.Item>
          <List.Item>
            Shortcodes in your page text also work through a tag manager, but the shortcode text shows until the tag manager runs, and the page moves
            when the banners arrive. Use the banner elements wherever you can.
          </List.Item>
        </List>
      </InstallStep>
    </InstallSection>
  );
}
