import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Tauri serves the built files from ui/dist; relative asset paths keep the build usable both
// inside the app and from a plain static server in the UI tests.
export default defineConfig({
  plugins: [svelte()],
  base: './',
  clearScreen: false,
  build: { target: 'es2022', outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
