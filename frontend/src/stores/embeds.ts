// Note embeds in the preview: ![[缓存设计]] and ![[缓存设计#结果]] show the
// note (or the heading's section) in a box under its link, as Obsidian
// does. The note is found as its link is (notes.resolve), read through
// notes.read and rendered by the same sanitizing renderer. One level only:
// a note embedded in an embedded note stays a link, and so does a note
// embedding itself. The box's task boxes are read-only (a tick would go to
// the open note's line); its images and links are the embedded note's
// (data-embed-path: relative links resolve from there).

import { m } from '../lib/i18n.svelte';
import { wikiParts, type LineLink } from '../lib/links';
import { renderMarkdown } from '../lib/markdown';
import type { NoteText } from '../api/types';

export interface EmbedDeps {
  resolve(from: string, link: LineLink): Promise<{ path: string; heading: string } | null>;
  read(path: string, heading?: string): Promise<NoteText>;
  showImages(root: ParentNode, notePath: string): void;
}

/** The note an element of the preview belongs to: an embedded note's path inside its box, else notePath. */
export function embedOwner(el: Element, notePath: string): string {
  return el.closest('[data-embed-path]')?.getAttribute('data-embed-path') ?? notePath;
}

/** Expands the note embeds of rendered Markdown under root (the note notePath), each once. */
export function showNoteEmbeds(root: ParentNode, notePath: string, deps: EmbedDeps): void {
  for (const a of root.querySelectorAll<HTMLAnchorElement>('a.md-embed-note:not([data-embed-state])')) {
    if (a.closest('.md-embed-body')) continue; // one level
    const inner = a.getAttribute('data-wiki');
    if (inner === null) continue;
    a.setAttribute('data-embed-state', 'loading');
    void expand(a, inner, notePath, deps);
  }
}

async function expand(a: HTMLAnchorElement, inner: string, notePath: string, deps: EmbedDeps): Promise<void> {
  const p = wikiParts(inner);
  let r: { path: string; heading: string } | null;
  let t: NoteText;
  try {
    r = await deps.resolve(notePath, { kind: 'wiki', from: 0, to: 0, ...p });
    if (!r || !r.path || r.path === notePath) {
      a.setAttribute('data-embed-state', 'link');
      return;
    }
    t = await deps.read(r.path, p.heading || undefined);
  } catch {
    a.setAttribute('data-embed-state', 'link'); // shown as the link it is
    return;
  }
  if (!a.isConnected) return; // re-rendered meanwhile: the new link expands
  const box = document.createElement('div');
  box.className = 'md-embed-box';
  box.setAttribute('data-embed-path', r.path);
  box.setAttribute('data-testid', 'note-embed');
  const head = document.createElement('div');
  head.className = 'md-embed-head';
  const body = document.createElement('div');
  body.classList.add('md-embed-body', 'md');
  if (t.noHeading) {
    const note = document.createElement('p');
    note.className = 'md-embed-note-missing';
    note.textContent = m.notes_embed_no_heading({ heading: p.heading, name: p.target });
    body.append(note);
  } else {
    body.innerHTML = renderMarkdown(t.text); // sanitized by the renderer
    for (const box of body.querySelectorAll('input.md-task')) box.removeAttribute('data-line');
    if (t.truncated) {
      const more = document.createElement('p');
      more.className = 'md-embed-more';
      more.textContent = m.notes_embed_truncated();
      body.append(more);
    }
  }
  a.replaceWith(box);
  a.setAttribute('data-embed-state', 'shown');
  head.append(a);
  box.append(head, body);
  deps.showImages(body, r.path);
}
