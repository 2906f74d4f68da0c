/**
 * Inventory Management (/dealer/inventory; spec 02 §2 Inventory): title, subtitle and the two tabs
 * 'Automatic Feed' and 'Manual Upload'. The tab is kept in `?tab=` so it survives a reload.
 */
import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { Skeleton, Stack, Tabs, Text, Title } from '@mantine/core';
import { FileUp, Rss } from 'lucide-react';
import { INVENTORY_TEXT, TEXT } from '../../../domain/constants';
import { useAuth, useCanEdit } from '../../components/auth';
import { ErrorNotice } from '../../components/feedback';
import { ViewOnlyNotice } from '../../components/ViewOnlyNotice';
import { FeedTab } from './FeedTab';

/**
 * The Manual Upload tab with its dropzone (react-dropzone, file-selector: 19 KB gzipped) and CSS is
 * a chunk of its own, fetched when the tab is opened: the default tab does not need it.
 */
const ManualUpload = lazy(async () => ({ default: (await import('./ManualUpload')).ManualUpload }));

export function InventoryPage() {
  const { user } = useAuth();
  const dealerId = user?.dealerId ?? null;
  const canEdit = useCanEdit();
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'upload' ? 'upload' : 'feed';

  if (!dealerId) return <ErrorNotice message={TEXT.dealerIdNotFound} />;
  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>{INVENTORY_TEXT.title}</Title>
        <Text c="dimmed">{INVENTORY_TEXT.subtitle}</Text>
      </div>
      {!canEdit && <ViewOnlyNotice action="change the feed or upload inventory" />}
      <Tabs value={tab} onChange={(v) => setParams(v === 'upload' ? { tab: 'upload' } : {}, { replace: true })} keepMounted={false}>
        <Tabs.List mb="lg">
          <Tabs.Tab value="feed" leftSection={<Rss size={16} />}>
            Automatic Feed
          </Tabs.Tab>
          <Tabs.Tab value="upload" leftSection={<FileUp size={16} />}>
            Manual Upload
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="feed">
          <FeedTab dealerId={dealerId} canEdit={canEdit} />
        </Tabs.Panel>
        <Tabs.Panel value="upload">
          <Suspense fallback={<Skeleton h={220} radius="md" />}>
            <ManualUpload dealerId={dealerId} canEdit={canEdit} />
          </Suspense>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
