// Vite builds the React web app from src/web into dist/web; the dev server proxies the API to the Fastify server.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: 'src/web',
  plugins: [react()],
  build: { outDir: '../../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { '/api': 'http://localhost:3000', '/scripts/dc-banners-': 'http://localhost:3000' } },
});
