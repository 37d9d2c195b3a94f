import { describe, expect, it, vi } from 'vitest';
import { renderMarkdown } from '../src/lib/markdown';
import { embedOwner, showNoteEmbeds, type EmbedDeps } from '../src/stores/embeds';

const NOTES: Record<string, string> = {
  '设计/缓存设计.md': '# 缓存设计\n\n- [ ] 待办\n\n见 [计划](计划.md) 与 ![[缓存设计]] ![[周报]]\n',
  '周报.md': '# 周报\n\n![[缓存设计]]\n',
};

function deps(): EmbedDeps & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    resolve: async (_from, link) => (link.kind === 'wiki' ? { path: { 缓存设计: '设计/缓存设计.md', 周报: '周报.md' }[link.target] ?? '', heading: link.heading } : null),
    read: async (path, heading) => {
      reads.push(path + (heading ? '#' + heading : ''));
      if (heading === '没有') return { path, text: '', noHeading: true };
      return { path, text: NOTES[path] ?? '' };
    },
    showImages: vi.fn(),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('note embeds in the preview', () => {
  it('shows the embedded note under its link, one level deep, its task boxes read-only and its links from its own folder', async () => {
    const host = document.body.appendChild(document.createElement('div'));
    host.innerHTML = `<div class="md">${renderMarkdown('# 周报\n\n![[缓存设计]]\n\n![[周报]]\n\n![[缓存设计#没有]]')}</div>`;
    const d = deps();
    showNoteEmbeds(host, '周报.md', d);
    await settle();
    await settle();
    const boxes = host.querySelectorAll('[data-testid="note-embed"]');
    expect(boxes).toHaveLength(2); // itself (周报) stays a link
    const [box, missing] = boxes;
    expect(box.getAttribute('data-embed-path')).toBe('设计/缓存设计.md');
    expect(box.querySelector('.md-embed-head a.md-embed-note')?.textContent).toBe('缓存设计');
    expect(box.querySelector('.md-embed-body h1')?.textContent).toBe('缓存设计');
    expect(box.querySelector('input.md-task')?.hasAttribute('data-line')).toBe(false);
    // Its own embeds stay links (one level); its relative link belongs to it.
    expect(box.querySelectorAll('.md-embed-body a.md-embed-note')).toHaveLength(2);
    const link = box.querySelector('.md-embed-body a.md-notelink')!;
    expect(embedOwner(link, '周报.md')).toBe('设计/缓存设计.md');
    expect(missing.textContent).toContain('没有');
    expect(host.querySelector('a.md-embed-note[data-embed-state="link"]')?.textContent).toBe('周报');
    expect(d.showImages).toHaveBeenCalledWith(box.querySelector('.md-embed-body'), '设计/缓存设计.md');
    // Asked again (a re-render elsewhere): nothing read twice.
    showNoteEmbeds(host, '周报.md', d);
    await settle();
    expect(d.reads).toEqual(['设计/缓存设计.md', '设计/缓存设计.md#没有']);
  });

  it('what an embedded note holds is sanitized like any note', async () => {
    const host = document.body.appendChild(document.createElement('div'));
    host.innerHTML = renderMarkdown('![[坏]]');
    const d = deps();
    d.resolve = async () => ({ path: '坏.md', heading: '' });
    d.read = async (path) => ({ path, text: '<img src=x onerror=alert(1)><script>alert(1)</script>[x](javascript:alert(1))' });
    showNoteEmbeds(host, 'a.md', d);
    await settle();
    await settle();
    const body = host.querySelector('.md-embed-body')!;
    expect(body.querySelector('script, img[onerror]')).toBeNull();
    expect(body.querySelector('a[href^="javascript"]')).toBeNull();
  });
});
