// Issue 17, images in prompts: the composer takes pasted, dropped and
// picked images (checked like Go checks them, shown as thumbnails that
// can be removed, refused with a toast), sends them with the prompt, and
// a user message shows the images the session keeps.
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Entry, SessionSummary, Snapshot } from '../src/api/types';
import Composer from '../src/components/Composer.svelte';
import UserMessage from '../src/components/UserMessage.svelte';
import { filesOf, MAX_IMAGE_BYTES, MAX_IMAGES, readImage, sniffImage, toBase64 } from '../src/lib/images';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot, summary } from './helpers';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
function png(n: number, seed = 1): Uint8Array {
  const b = new Uint8Array(n).fill(seed);
  b.set(PNG);
  return b;
}
function file(bytes: Uint8Array, name: string, type = 'image/png'): File {
  return new File([bytes as BlobPart], name, { type });
}
/** A paste (or drop) event carrying files as clipboard items. */
function withFiles(type: 'paste' | 'drop', files: File[]): Event {
  const ev = new Event(type, { bubbles: true, cancelable: true });
  const dt = { items: files.map((f) => ({ kind: 'file', getAsFile: () => f })), files, types: ['Files'] };
  Object.defineProperty(ev, type === 'paste' ? 'clipboardData' : 'dataTransfer', { value: dt });
  return ev;
}

describe('lib/images', () => {
  it('tells the four types by their bytes, not their names', () => {
    expect(sniffImage(png(16))).toBe('image/png');
    expect(sniffImage(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImage(new TextEncoder().encode('GIF89a....'))).toBe('image/gif');
    expect(sniffImage(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImage(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('');
    expect(sniffImage(new Uint8Array([0x89, 0x50]))).toBe('');
  });

  it('reads an image as base64 and refuses too big, wrong type and one too many', async () => {
    const b = png(40_000, 7);
    const r = await readImage(file(b, 'a.png'), 0);
    expect(r).toMatchObject({ mimeType: 'image/png', size: 40_000, name: 'a.png' });
    expect(typeof r === 'object' && atob(r.data).length).toBe(40_000);
    expect(typeof r === 'object' && atob(r.data).charCodeAt(100)).toBe(7);
    expect(await readImage(file(png(MAX_IMAGE_BYTES + 1), 'big.png'), 0)).toBe('too_big');
    expect(await readImage(file(new TextEncoder().encode('just text'), 'a.png'), 0)).toBe('type');
    expect(await readImage(file(png(20), 'a.png'), MAX_IMAGES)).toBe('too_many');
    expect(toBase64(new Uint8Array([0, 255, 1]))).toBe('AP8B');
  });

  it('finds the files of a paste, else its files list', () => {
    const f = file(png(20), 'a.png');
    const ev = withFiles('paste', [f]) as ClipboardEvent;
    expect(filesOf(ev.clipboardData)).toEqual([f]);
    expect(filesOf({ items: [{ kind: 'string', getAsFile: () => null }], files: [f] } as unknown as DataTransfer)).toEqual([f]);
    expect(filesOf(null)).toEqual([]);
  });
});

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;
const created: string[] = [];
const revoked: string[] = [];

function setup(sum: Partial<SessionSummary> = { images: true }, entries: Entry[] = []) {
  const snap: Snapshot = { ...snapshot('s1', 0, entries), session: summary('s1', sum) };
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snap,
    'sessions.prompt': () => ({ turn: 1 }),
    'sessions.image': (a) => ({ mimeType: 'image/png', data: 'iVBORw0KGgo=' + String(a.hash).slice(0, 2) }),
    'workspace.get': () => null,
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  return { ...f, app };
}

beforeEach(() => {
  localStorage.clear();
  created.length = 0;
  revoked.length = 0;
  let n = 0;
  URL.createObjectURL = vi.fn(() => {
    const u = `blob:test/${++n}`;
    created.push(u);
    return u;
  });
  URL.revokeObjectURL = vi.fn((u: string) => void revoked.push(u));
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  app?.stop();
  app = null;
  setApp(null);
  target.remove();
});

async function settle() {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 0));
    flushSync();
  }
  await tick();
}

describe('Composer: images', () => {
  it('takes a pasted and a dropped image, × removes one (its URL revoked), Send sends the other as base64 and empties the strip', async () => {
    const { call, app } = setup();
    await app.openSession('s1');
    comp = mount(Composer, { target });
    flushSync();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    const paste = withFiles('paste', [file(png(300, 3), 'shot.png')]);
    ta.dispatchEvent(paste);
    expect(paste.defaultPrevented).toBe(true);
    await settle();
    target.querySelector('.box')?.dispatchEvent(withFiles('drop', [file(png(50, 4), 'drop.png')]));
    await settle();
    let thumbs = target.querySelectorAll('[data-testid="composer-image"]');
    expect(thumbs).toHaveLength(2);
    expect((thumbs[0] as HTMLImageElement).src).toBe(created[0]);

    (target.querySelectorAll('[data-testid="composer-image-remove"]')[1] as HTMLButtonElement).click();
    flushSync();
    expect(revoked).toEqual([created[1]]);
    expect(target.querySelectorAll('[data-testid="composer-image"]')).toHaveLength(1);

    // An image alone can be sent.
    const send = target.querySelector('button.send') as HTMLButtonElement;
    expect(send.disabled).toBe(false);
    send.click();
    await settle();
    const args = call.mock.calls.find((c) => c[0] === 'sessions.prompt')?.[1] as { text: string; images: { mimeType: string; data: string }[] };
    expect(args.text).toBe('');
    expect(args.images).toHaveLength(1);
    expect(args.images[0].mimeType).toBe('image/png');
    expect(atob(args.images[0].data).length).toBe(300);
    thumbs = target.querySelectorAll('[data-testid="composer-image"]');
    expect(thumbs).toHaveLength(0);
    expect(revoked).toContain(created[0]);
  });

  it('refuses a file of another type and a too big image with a toast; text paste is left alone', async () => {
    const { app } = setup();
    await app.openSession('s1');
    comp = mount(Composer, { target });
    flushSync();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    ta.dispatchEvent(withFiles('paste', [file(new TextEncoder().encode('hello'), 'notes.txt', 'text/plain')]));
    await settle();
    ta.dispatchEvent(withFiles('paste', [file(png(MAX_IMAGE_BYTES + 10), 'huge.png')]));
    await settle();
    expect(target.querySelectorAll('[data-testid="composer-image"]')).toHaveLength(0);
    const msgs = app.toasts.items.map((t) => t.message);
    expect(msgs).toContain('notes.txt is not a PNG, JPEG, GIF or WebP image.');
    expect(msgs.some((x) => x.startsWith('huge.png is too big: an image can be at most 5'))).toBe(true);

    const text = new Event('paste', { bubbles: true, cancelable: true });
    Object.defineProperty(text, 'clipboardData', { value: { items: [{ kind: 'string', getAsFile: () => null }], files: [] } });
    ta.dispatchEvent(text);
    expect(text.defaultPrevented).toBe(false);
  });

  it('refuses images when the agent does not take them, saying so', async () => {
    const { app } = setup({ images: false, agent: 'plain-agent' });
    await app.openSession('s1');
    comp = mount(Composer, { target });
    flushSync();
    const ta = target.querySelector('textarea') as HTMLTextAreaElement;
    ta.dispatchEvent(withFiles('paste', [file(png(30), 'a.png')]));
    await settle();
    expect(target.querySelectorAll('[data-testid="composer-image"]')).toHaveLength(0);
    expect(app.toasts.items.map((t) => t.message)).toContain('plain-agent does not take images.');
    (target.querySelector('[data-testid="attach-images"]') as HTMLButtonElement).click();
    expect(app.toasts.items.filter((t) => t.message === 'plain-agent does not take images.').length).toBeGreaterThanOrEqual(1);
  });
});

describe('UserMessage: images', () => {
  const hash = 'ab'.padEnd(64, '0');
  const entry: Entry = {
    id: 'e1',
    kind: 'user_message',
    turn: 1,
    text: 'what is this',
    blocks: [{ type: 'image', offset: 0, raw: { type: 'image', mimeType: 'image/png', hash } }],
  };

  it('fetches the kept image by hash, shows a thumbnail, a click shows it larger', async () => {
    const { call, app } = setup({ images: true }, [entry]);
    await app.openSession('s1');
    comp = mount(UserMessage, { target, props: { entry } });
    await settle();
    expect(call).toHaveBeenCalledWith('sessions.image', { sessionId: 's1', hash });
    const img = target.querySelector('[data-testid="message-image"]') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe('data:image/png;base64,iVBORw0KGgo=ab');
    expect(target.textContent).not.toContain('image/png'); // no chip for it
    (img.closest('button') as HTMLButtonElement).click();
    flushSync();
    const big = target.querySelector('[data-testid="image-viewer"]') as HTMLImageElement;
    expect(big.getAttribute('src')).toBe(img.getAttribute('src'));
    (target.querySelector('.viewer .close') as HTMLButtonElement).click();
    flushSync();
    expect(target.querySelector('[data-testid="image-viewer"]')).toBeNull();
  });
});

describe('client: images', () => {
  it('sessions.export carries images only when asked; sessions.image names the session and the hash', async () => {
    const f = fakeClient({
      'sessions.export': () => ({ filename: 'x.html', mime: 'text/html', content: '<html>' }),
      'sessions.image': () => ({ mimeType: 'image/gif', data: 'R0lGODlh' }),
    });
    await f.client.sessions.export('s', { format: 'html', images: true });
    await f.client.sessions.export('s', { format: 'md' });
    expect(f.call.mock.calls.map((c) => (c[1] as { images?: boolean }).images)).toEqual([true, undefined]);
    expect(await f.client.sessions.image('s', 'h')).toEqual({ mimeType: 'image/gif', data: 'R0lGODlh' });
    expect(f.call).toHaveBeenLastCalledWith('sessions.image', { sessionId: 's', hash: 'h' });
  });
});
