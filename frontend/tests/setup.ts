// Runs before every test file (vite.config.ts: setupFiles).
//
// The suite runs without per-file isolation (isolate: false): the files of a
// worker share one jsdom and one module cache, which saves the ~2.5 minutes
// that a fresh jsdom and fresh imports for each file took on a 2-core
// machine. So each file starts from the page a fresh jsdom gives: what an
// earlier file left in the DOM, the storage, the URL and the timers is put
// back here. Module state (stores, caches) is shared: a file that changes
// it (the locale, say) puts it back in its own afterEach.
import { vi } from 'vitest';

// What jsdom lacks, the same for every file (a file must not depend on
// whether an earlier one defined it).
// bind:clientWidth/clientHeight use a ResizeObserver: sizes stay 0 here.
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
} as unknown as typeof ResizeObserver;
// jsdom lays nothing out: CodeMirror measuring a selection asks a Range for rectangles.
Range.prototype.getClientRects ??= () => [] as unknown as DOMRectList;
Range.prototype.getBoundingClientRect ??= () => new DOMRect();

type Start = { url: string; createObjectURL: unknown; revokeObjectURL: unknown };
const g = globalThis as typeof globalThis & { __mnoteStart?: Start };
// The first file's start is the page every later file gets back.
const start = (g.__mnoteStart ??= {
  url: location.href,
  createObjectURL: URL.createObjectURL,
  revokeObjectURL: URL.revokeObjectURL,
});

vi.useRealTimers();
document.body.replaceChildren();
for (const el of [document.documentElement, document.body]) {
  for (const a of [...el.attributes]) el.removeAttribute(a.name);
}
document.title = '';
localStorage.clear();
sessionStorage.clear();
history.replaceState(null, '', start.url);
Object.assign(URL, { createObjectURL: start.createObjectURL, revokeObjectURL: start.revokeObjectURL });
