import { fileURLToPath } from 'node:url';
import optimizeLocales from '@react-aria/optimize-locales-plugin';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The dashboard: served by the app under /app/ (src/dashboard), built into dist/web.
 * No React plugin: the production build needs only the JSX transform, which Vite's own
 * transformer does (the plugin adds fast refresh for a dev server this project does not use).
 */
export default defineConfig({
  root: here('.'),
  base: '/app/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic' } },
  // React Aria ships its widgets' strings ("Select an option", "Dismiss") in 34 languages; the
  // dashboard is written in English, so the others are dead weight in the initial JavaScript
  // (and a German browser would hear German labels among English ones).
  plugins: [optimizeLocales.vite({ locales: ['en-US'] })],
  build: {
    outDir: here('../dist/web'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    // One chunk per lazily loaded page; the initial load is the shell and the signed-in pages.
    // The entry chunk (React, the router, TanStack Query, React Aria) is ~480 KB raw, ~190 KB
    // gzip: the budget that matters is gzip, kept by npm run bench:dashboard (<= 200 KB).
    chunkSizeWarningLimit: 500,
    rolldownOptions: {
      onwarn(warning, warn) {
        // TanStack Query's "use client" markers are for server-component bundlers, not this SPA.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  logLevel: 'warn',
});
