import { describe, expect, it, vi } from 'vitest';
import { EditorView } from '@codemirror/view';
import { outline } from '../src/lib/outline';
import { editorInfo } from '../src/lib/editorinfo.svelte';
import { EditorState } from '@codemirror/state';
import { markdownLanguage } from '@codemirror/lang-markdown';
import { headingsOf, sectionAt } from '../src/lib/outline';
import { localImageSrc, renderMarkdown, sanitize } from '../src/lib/markdown';

describe('outline', () => {
  it('lists the headings in order, not those in front matter, code or quotes', () => {
    const doc = ['---', 'title: 周报', '---', '# 缓存设计 #', '正文', '', '## 命中率', '```', '# 不是标题', '```', '> # 引用里的', '', '实验记录', '--------', '### 三级'].join('\n');
    const state = EditorState.create({ doc, extensions: [markdownLanguage] });
    const hs = headingsOf(state);
    expect(hs.map((h) => [h.level, h.text, h.line])).toEqual([
      [1, '缓存设计', 4],
      [2, '命中率', 7],
      [2, '实验记录', 13],
      [3, '三级', 15],
    ]);
    expect(sectionAt(hs, 0)).toBe(-1);
    expect(sectionAt(hs, hs[1].from)).toBe(1);
    expect(sectionAt(hs, hs[1].from + 3)).toBe(1);
    expect(sectionAt(hs, state.doc.length)).toBe(3);
  });
});

describe('outline of a note parsed in the background', () => {
  it('follows the parser: headings it had not reached when the note opened show once it does', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `第${i + 1}段，Reasonix 的缓存命中率很高。`).join('\n\n');
    const doc = `# 缓存设计\n\n${filler}\n\n## 实验\n\n${filler}\n\n## 结论\n\n结语\n`;
    // A busy machine: the parse of the first read gets no time at all.
    let t = 0;
    const now = vi.spyOn(Date, 'now').mockImplementation(() => (t += 10_000));
    const view = new EditorView({ state: EditorState.create({ doc, extensions: [markdownLanguage, outline] }), parent: document.body.appendChild(document.createElement('div')) });
    now.mockRestore();
    try {
      expect(editorInfo.headings.map((h) => h.text)).not.toContain('结论');
      await vi.waitFor(() => expect(editorInfo.headings.map((h) => h.text)).toEqual(['缓存设计', '实验', '结论']), { timeout: 15_000, interval: 50 });
    } finally {
      view.destroy();
    }
  }, 20_000);
});

describe('images of the notes folder in the preview', () => {
  it('renders a relative image as one to load (data-src as written), other images as before', () => {
    const d = document.createElement('div');
    d.innerHTML = renderMarkdown('![图](../attachments/Pasted%20image%2020261207-131500.png) ![x](https://evil.example/a.png) ![y](/etc/passwd)');
    const imgs = [...d.querySelectorAll('img')];
    expect(imgs.length).toBe(2); // /etc/passwd: the page's own origin, as before (nothing of the disk)
    expect(imgs[1].getAttribute('src')).toBe(new URL('/etc/passwd', location.href).href);
    expect(imgs[0].getAttribute('src')).toBe(null);
    expect(localImageSrc(imgs[0])).toBe('../attachments/Pasted%20image%2020261207-131500.png');
    expect(imgs[0].getAttribute('alt')).toBe('图');
    // data-src only on the renderer's own images.
    const s = document.createElement('div');
    s.innerHTML = sanitize('<a data-src="x.png">a</a><img data-src="javascript:alert(1)"><img class="md-local" data-src="https://x.example/a.png">');
    expect(s.querySelectorAll('[data-src]').length).toBe(0);
  });
});
