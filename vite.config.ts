// Vite builds the React web app from src/web into dist/web; the dev server proxies the API to the Fastify server.
// Screens are split per route (src/web/App.tsx); the manifest lets scripts/web-budget.ts check each route's first load.
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Two of Mantine's everyday components import a whole library for one small thing, which put that
 * library in every signed-in screen's first load: ScrollArea (the shell's navigation,
 * every Table) takes `useMergeRefs` from @floating-ui/react, the popover engine (15 KB gzipped),
 * and AppShell's header takes one class name from react-remove-scroll, the modal scroll lock
 * (4 KB). For those two importers only, this resolves the import to a module with the same export
 * built from what the app loads anyway (@mantine/hooks' `useMergedRef`, the class-name constant of
 * react-remove-scroll-bar), so the libraries load with the screens that open a popover, tooltip,
 * select or modal. Same behaviour: both stand-ins do exactly what the originals do.
 */
function mantineLightImports(): Plugin {
  const stubs: Array<{ importer: RegExp; source: string; id: string; code: string }> = [
    {
      importer: /@mantine\/core\/esm\/components\/ScrollArea\/ScrollArea\.mjs$/,
      source: '@floating-ui/react',
      id: '\0dc-banners:merge-refs',
      code: "import { useMergedRef } from '@mantine/hooks';\nexport const useMergeRefs = (refs) => useMergedRef(...refs);\n",
    },
    {
      importer: /@mantine\/core\/esm\/components\/AppShell\/AppShell(Header|Footer|Aside)\/AppShell\1\.mjs$/,
      source: 'react-remove-scroll',
      id: '\0dc-banners:remove-scroll-class-names',
      code: "import { zeroRightClassName, fullWidthClassName } from 'react-remove-scroll-bar/constants';\nexport const RemoveScroll = { classNames: { zeroRight: zeroRightClassName, fullWidth: fullWidthClassName } };\n",
    },
  ];
  return {
    name: 'dc-banners:mantine-light-imports',
    enforce: 'pre',
    resolveId(source, importer) {
      return stubs.find((s) => s.source === source && importer && s.importer.test(importer.replaceAll('\\', '/')))?.id ?? null;
    },
    load(id) {
      return stubs.find((s) => s.id === id)?.code ?? null;
    },
  };
}

/**
 * The charts (loaded only when a chart renders, components/LineChart.tsx) are one 566 KB chunk,
 * over Vite's 500 KB warning: recharts goes in a chunk of its own and the libraries only it uses
 * (d3, redux, ...) in another. A manual chunk also takes in the modules its modules import, so
 * React and clsx, which the charts share with every screen, get a chunk of their own that the
 * entry loads, else the entry would load the charts' chunk for them. First loads stay the same.
 */
function manualChunks(id: string): string | undefined {
  const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(id)?.[1]?.replace('\\', '/');
  if (!pkg) return undefined;
  if (['react', 'react-dom', 'scheduler', 'clsx'].includes(pkg)) return 'react';
  if (pkg === 'recharts') return 'recharts';
  if (/^(d3-.*|victory-vendor|internmap|decimal\.js-light|@reduxjs\/toolkit|immer|redux|redux-thunk|reselect|react-redux|use-sync-external-store|react-is|es-toolkit|eventemitter3|tiny-invariant)$/.test(pkg)) return 'charts-vendor';
  return undefined;
}

export default defineConfig({
  root: 'src/web',
  plugins: [react(), mantineLightImports()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    manifest: true,
    rollupOptions: {
      output: {
        manualChunks,
      },
    },
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/scripts/dc-banners-': 'http://localhost:3000' } },
});
