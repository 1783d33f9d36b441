import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// One page, one widget per `?w=NAME` (see src/main.jsx). Relative asset paths, so the pages
// work from any folder a test server serves them from.
export default defineConfig({
  plugins: [react()],
  base: './',
  // selectize's stylesheet still carries old Internet Explorer hacks (`*display: inline`),
  // which browsers ignore: dropped rather than failing the build.
  css: { lightningcss: { errorRecovery: true } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 2000 },
});
