/**
 * Mantine's LineChart, fetched with its CSS when a chart first renders: the charting
 * code (recharts, about 116 KB gzipped) would otherwise double the first load of the Analytics and
 * Platform Analytics screens, whose figures need none of it. A skeleton of the chart's height
 * holds its place meanwhile, so nothing shifts when it arrives. Same props as `@mantine/charts`.
 */
import { lazy, Suspense, type ComponentProps } from 'react';
import { Skeleton } from '@mantine/core';
import type { LineChart as MantineLineChart } from '@mantine/charts';

const Chart = lazy(async () => {
  const [charts] = await Promise.all([import('@mantine/charts'), import('@mantine/charts/styles.css')]);
  return { default: charts.LineChart };
});

export function LineChart(props: ComponentProps<typeof MantineLineChart>) {
  return (
    <Suspense fallback={<Skeleton h={props.h} />}>
      <Chart {...props} />
    </Suspense>
  );
}
