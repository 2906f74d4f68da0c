// Vite builds the React web app from src/web into dist/web; the dev server proxies the API to the Fastify server.
// Screens are split per route (src/web/App.tsx); the manifest lets scripts/web-budget.ts check each route's first load.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'src/web',
  plugins: [react()],
  build: { outDir: '../../dist/web', emptyOutDir: true, manifest: true },
  server: { proxy: { '/api': 'http://localhost:3000', '/scripts/dc-banners-': 'http://localhost:3000' } },
});
