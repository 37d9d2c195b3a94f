import { defineConfig, type Plugin } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// `npm run dev` talks to a running `mnote serve` through this proxy; open
// http://localhost:5173/?code=C with the one-time code of the URL that
// `mnote serve` printed.
const serve = process.env.MNOTE_SERVE_URL ?? 'http://127.0.0.1:7777';

// The shipped page gets a Content-Security-Policy (the dev server injects
// inline styles and scripts for HMR, so it gets none). Markdown is
// sanitized before it reaches the DOM; this is the second wall: no inline
// script, no plugins, no frames, no forms, and no images from the network.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function csp(): Plugin {
  return {
    name: 'mnote-csp',
    apply: 'build',
    transformIndexHtml(html) {
      return html.replace(
        '<meta charset="utf-8" />',
        `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />`,
      );
    },
  };
}

export default defineConfig({
  plugins: [svelte(), csp()],
  // Relative asset URLs: the page works from Wails' asset server and from
  // `mnote serve` alike.
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true, // public/.gitkeep puts dist/.gitkeep back
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    // Tests read files of the Go side too (tests/share-page-times.test.ts:
    // controlplane/page.html); the dev server serves only the page's own.
    fs: process.env.VITEST ? { allow: ['..'] } : undefined,
    proxy: {
      '/api': {
        target: serve,
        ws: true,
        changeOrigin: true,
        configure(proxy) {
          // `mnote serve` checks Origin (calls and the WebSocket) against its own.
          proxy.on('proxyReq', (proxyReq) => {
            if (proxyReq.getHeader('origin')) proxyReq.setHeader('origin', serve);
          });
          proxy.on('proxyReqWs', (proxyReq) => proxyReq.setHeader('origin', serve));
        },
      },
    },
  },
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
  test: {
    environment: 'jsdom',
    include: ['tests/**/*.test.ts'],
    restoreMocks: true,
    // One jsdom and one module cache per worker, not per file: a jsdom and
    // the imports for each of 50 files were ~2/3 of the suite's time.
    // tests/setup.ts gives every file the page and the modules a fresh
    // jsdom would.
    isolate: false,
    pool: 'threads',
    setupFiles: ['tests/setup.ts'],
  },
});
