// Files pasted or dropped into notes, and the images notes show.
//
// save() sends a file to files.attach (which writes it inside the notes
// folder, under a free name) and says why when it cannot; imageURL() loads
// an image a note links to (relative to the note) through files.image as a
// blob: URL, kept while the app runs (the page's CSP allows blob: images;
// the window serves no files of the notes folder).

import { ApiError, type Client } from '../api';
import { errorText } from '../lib/errtext';
import { bytes } from '../lib/format';
import { m } from '../lib/i18n.svelte';
import { toBase64 } from '../lib/images';
import { relativeLinkPath } from '../lib/links';
import { embedTarget, localImageSrc } from '../lib/markdown';
import type { ToastStore } from './toasts.svelte';

/** The largest file files.attach takes (API.md): checked here first to say so at once. */
export const MAX_ATTACH_BYTES = 10 * 1024 * 1024;

/** Images kept as blob: URLs at most (the oldest are let go). */
const MAX_KEPT = 200;

export class AttachmentsStore {
  private urls = new Map<string, Promise<string | null>>();

  constructor(
    private readonly client: Client,
    private readonly toasts: ToastStore,
  ) {}

  /** Saves file as path (workspace-relative); the path it was saved as, or null (a toast said why). */
  async save(file: Blob & { name?: string }, path: string): Promise<string | null> {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (file.size > MAX_ATTACH_BYTES) {
      this.toasts.error(() => m.editor_wr_too_large({ name, size: bytes(file.size), max: bytes(MAX_ATTACH_BYTES) }));
      return null;
    }
    try {
      const data = toBase64(new Uint8Array(await file.arrayBuffer()));
      const r = await this.client.files.attach(path, data);
      this.urls.delete(r.path);
      return r.path;
    } catch (e) {
      const error = e instanceof ApiError ? errorText(e) : e instanceof Error ? e.message : String(e);
      this.toasts.error(() => m.editor_wr_attach_failed({ name, error }));
      return null;
    }
  }

  /** A blob: URL of the image href (as written in the note notePath) names; null when it cannot be shown. */
  imageURL(notePath: string, href: string): Promise<string | null> {
    const path = relativeLinkPath(notePath, href);
    if (!path) return Promise.resolve(null);
    return this.pathURL(path);
  }

  /** The image an embed ![[target]] in the note notePath shows, found as a link is (notes.resolve: by name anywhere in the folder, beside the note first), as a blob: URL; null when none is found or it is no image. */
  async embedURL(notePath: string, target: string): Promise<string | null> {
    let path: string;
    try {
      path = await this.client.notes.resolve(notePath, target, true);
    } catch {
      return null;
    }
    return path ? this.pathURL(path) : null;
  }

  /** An image of the workspace (its path) as a blob: URL, loaded once. */
  private pathURL(path: string): Promise<string | null> {
    let u = this.urls.get(path);
    if (!u) {
      u = this.client.files.image(path).then(
        (img) => {
          const raw = atob(img.data);
          const b = new Uint8Array(raw.length);
          for (let i = 0; i < raw.length; i++) b[i] = raw.charCodeAt(i);
          return URL.createObjectURL(new Blob([b], { type: img.mimeType }));
        },
        () => {
          this.urls.delete(path); // not there yet (or not an image): asked again next time
          return null;
        },
      );
      this.urls.set(path, u);
      if (this.urls.size > MAX_KEPT) {
        const [first, p] = this.urls.entries().next().value ?? [];
        if (first !== undefined) {
          this.urls.delete(first);
          void p?.then((url) => url && URL.revokeObjectURL(url));
        }
      }
    }
    return u;
  }

  /** Loads the images of the notes folder that rendered Markdown under root shows (for the note notePath). */
  showImages(root: ParentNode, notePath: string): void {
    for (const img of root.querySelectorAll<HTMLImageElement>('img.md-local:not([src]), img.md-embed:not([src])')) {
      if (img.dataset.loading === '1') continue;
      const href = localImageSrc(img);
      const target = href === null ? embedTarget(img) : null;
      if (href === null && target === null) continue;
      img.dataset.loading = '1';
      void (href !== null ? this.imageURL(notePath, href) : this.embedURL(notePath, target ?? '')).then((url) => {
        delete img.dataset.loading;
        img.classList.toggle('md-missing', !url);
        if (url) img.src = url;
      });
    }
  }
}
