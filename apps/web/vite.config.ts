import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console builds into dist/web, which the API serves under /ui (apps/api/src/web). No plugin:
 * Vite 8 compiles TSX (React's automatic runtime) by itself, and a production build needs no
 * fast refresh. `modulePreload.polyfill` off: it would be one more script, and Chromium needs none.
 */
export default defineConfig({
  root,
  base: '/ui/',
  resolve: { alias: { '#client': fileURLToPath(new URL('../../libs/client/src/index.ts', import.meta.url)) } },
  // development: false as well, or NODE_ENV=test makes the JSX compile to jsxDEV, which React's production build lacks.
  oxc: { jsx: { runtime: 'automatic', development: false } },
  // Always React's production build: the test command runs with NODE_ENV=test, and Vite would
  // otherwise bundle React's development build (229 KB gzipped instead of 160, effects run twice).
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: fileURLToPath(new URL('../../dist/web', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1200,
    reportCompressedSize: true,
    rolldownOptions: {
      // React Flow marks its entry "use client" (for React Server Components); a browser bundle has no server half.
      onLog(level, log, handler) {
        if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
      },
    },
  },
});
