import { describe, expect, it, vi } from 'vitest';
import {
  MAX_HIGHLIGHT,
  MarkdownStream,
  MAX_FRAME_APPEND,
  STREAM_PLAIN,
  handleMarkdownClick,
  isSafeHref,
  isSafeImageSrc,
  renderMarkdown,
  sanitize,
  setMarkdownOptions,
} from '../src/lib/markdown';

/** Every render takes 1 ms by the clock: a slow render (over 4 ms) is
 * re-rendered at most every 4x its time while streaming, so on a busy machine
 * a real clock would throttle the updates of tests that are not about that. */
function fastRenders() {
  let now = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => (now += 1));
}

function dom(html: string): HTMLDivElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

/** Everything that could run script or load something it should not. */
function assertInert(root: HTMLElement) {
  expect(root.querySelectorAll('script, style, iframe, frame, object, embed, form, svg, math, link, meta, base')).toHaveLength(0);
  for (const el of root.querySelectorAll('*')) {
    for (const a of el.attributes) {
      expect(a.name.startsWith('on'), `${el.tagName} has ${a.name}`).toBe(false);
      expect(a.name).not.toBe('style');
      if (a.name === 'href' || a.name === 'src') {
        expect(a.value.replace(/[\s\u0000-\u001f]/g, '')).not.toMatch(/^(javascript|vbscript|data:text|file):/i);
      }
    }
  }
}

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">click</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<svg onload=alert(1)><circle r="5"/></svg>',
  '<form action="https://evil.example"><input name=a></form>',
  '<style>body{display:none}</style>',
  '<object data="x.swf"></object><embed src="x.swf">',
  '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
];

describe('markdown sanitizer', () => {
  it.each(HOSTILE)('renders raw HTML inert: %s', (src) => {
    const root = dom(renderMarkdown(`Before\n\n${src}\n\nAfter ${src}`));
    assertInert(root);
    expect(root.textContent).toContain('Before');
    expect(root.textContent).toContain('After');
  });

  it.each(HOSTILE)('the DOMPurify config alone strips it too: %s', (src) => {
    const root = dom(sanitize(src));
    assertInert(root);
    expect(root.querySelectorAll('img[onerror], a[href^="javascript"]')).toHaveLength(0);
  });

  it('drops javascript:, vbscript: and data: link targets, keeps the text', () => {
    const root = dom(
      renderMarkdown(
        '[a](javascript:alert(1)) [b](JaVaScRiPt:alert(1)) [c](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [d](vbscript:msgbox(1)) [e](java&#x09;script:alert(1))',
      ),
    );
    assertInert(root);
    for (const a of root.querySelectorAll('a')) expect(a.hasAttribute('href')).toBe(false);
    expect(root.textContent).toContain('a');
    expect(root.textContent).toContain('e');
  });

  it('keeps http(s), mailto and relative links, opening outside', () => {
    const root = dom(renderMarkdown('[w](https://example.com/x?q=1) [m](mailto:a@b.c) [r](./notes/a.pdf) <https://auto.example>'));
    const links = [...root.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([
      'https://example.com/x?q=1',
      'mailto:a@b.c',
      './notes/a.pdf',
      'https://auto.example',
    ]);
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')).toBe('noopener noreferrer');
    }
  });

  it('does not load remote images (they become links); keeps raster data: images', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    const root = dom(
      renderMarkdown(`![t](https://tracker.example/p.png?secret=1) ![j](javascript:alert(1)) ![s](data:image/svg+xml;base64,PHN2Zz4=) ![ok](${png})`),
    );
    assertInert(root);
    const imgs = [...root.querySelectorAll('img')];
    expect(imgs).toHaveLength(1);
    expect(imgs[0].getAttribute('src')).toBe(png);
    const remote = root.querySelector('a.md-remote-image');
    expect(remote?.getAttribute('href')).toBe('https://tracker.example/p.png?secret=1');
  });

  it('keeps HTML inside code blocks as text, highlights it and adds a copy button', () => {
    const root = dom(renderMarkdown('```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```'));
    assertInert(root);
    expect(root.querySelectorAll('img')).toHaveLength(0);
    const code = root.querySelector('.code-block pre code');
    expect(code?.textContent).toContain('<script>alert(1)</script>');
    expect(code?.classList.contains('hljs')).toBe(true);
    expect(code?.querySelector('[class^="hljs-"]')).not.toBeNull();
    expect(root.querySelector('.code-block button.copy-btn')?.getAttribute('type')).toBe('button');
  });

  it('highlights known languages and leaves unknown ones plain', () => {
    const root = dom(renderMarkdown('```go\nfunc main() { return }\n```\n\n```klingon\nqapla <b>\n```'));
    const [go, unknown] = root.querySelectorAll('pre code');
    expect(go.classList.contains('language-go')).toBe(true);
    expect(go.querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(unknown.children).toHaveLength(0);
    expect(unknown.textContent).toBe('qapla <b>');
    expect(root.querySelectorAll('.copy-btn')).toHaveLength(2);
  });

  it('renders GFM: tables, task lists (read-only), strikethrough', () => {
    const root = dom(renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~'));
    expect(root.querySelectorAll('table td')).toHaveLength(2);
    const boxes = root.querySelectorAll('input');
    expect(boxes).toHaveLength(2);
    for (const b of boxes) {
      expect(b.getAttribute('type')).toBe('checkbox');
      expect(b.hasAttribute('disabled')).toBe(true);
    }
    expect(root.querySelector('del')?.textContent).toBe('gone');
  });

  it('isSafeHref', () => {
    expect(isSafeHref('https://a')).toBe(true);
    expect(isSafeHref('notes/x.md')).toBe(true);
    expect(isSafeHref('mailto:a@b.example')).toBe(true);
    for (const bad of [
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'java\r\nscript:alert(1)',
      '\u0000javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'vbscript:x',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'blob:http://evil.example/x',
    ]) {
      expect(isSafeHref(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

// Image URLs as the browser resolves them against the page: only the
// page's own origin (and raster data:) loads; the CSP is the second wall.
describe('image URLs', () => {
  const HOSTILE_IMAGES = [
    '/\\evil.example/a.png',
    '\\\\evil.example/a.png',
    '//evil.example/a.png',
    '/\t/evil.example/a.png',
    '\t//evil.example/a.png',
    ' //evil.example/a.png',
    '\\/evil.example/a.png',
    'http:\\\\evil.example/a.png',
    'http:/\\evil.example/a.png',
    'https:evil.example/a.png',
    'http://evil.example/a.png',
    'https://evil.example/a.png',
    'ht\ttp://evil.example/a.png',
    'h\nttps://evil.example/a.png',
    'java\tscript:alert(1)',
    'javascript:alert(1)',
    'data:text/html;base64,PHNjcmlwdD4=',
    'data:image/svg+xml;base64,PHN2Zz4=',
    'data:image/png,not-base64',
    'blob:http://evil.example/1',
    'file:///etc/passwd',
    'ftp://evil.example/a.png',
    'http://[::1',
  ];

  it.each(HOSTILE_IMAGES)('refuses %j', (src) => {
    expect(isSafeImageSrc(src)).toBe(false);
    const root = dom(renderMarkdown(`![x](<${src}>)`) + sanitize(`<img src="${src.replace(/"/g, '&quot;')}">`));
    for (const img of root.querySelectorAll('img')) {
      const got = img.getAttribute('src');
      if (got === null) continue;
      expect(new URL(got, location.href).origin, `${src} became ${got}`).toBe(location.origin);
    }
  });

  it('loads same-origin and raster data: images, written back resolved', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    // http:a.png is relative on an http page: the browser loads it from here.
    for (const ok of ['a.png', './img/a.png', '/img/a.png', 'http:a.png', png, `${location.origin}/a.png`]) {
      expect(isSafeImageSrc(ok), ok).toBe(true);
    }
    const root = dom(renderMarkdown(`![a](/\\evil.example/a.png) ![b](img/b.png) ![c](${png})`));
    const srcs = [...root.querySelectorAll('img')].map((i) => i.getAttribute('src') ?? i.getAttribute('data-src'));
    // A relative path is a file of the notes folder: the notes preview loads it (data-src).
    expect(srcs).toEqual(['img/b.png', png]);
    // The other host's image became a link to what the browser would load.
    expect(root.querySelector('a.md-remote-image')?.getAttribute('href')).toBe('http://evil.example/a.png');
  });

  it('with remote images on, loads http(s) but still not other schemes', () => {
    setMarkdownOptions({ remoteImages: true });
    try {
      expect(isSafeImageSrc('https://cdn.example/a.png')).toBe(true);
      expect(isSafeImageSrc('//cdn.example/a.png')).toBe(true);
      expect(isSafeImageSrc('java\tscript:alert(1)')).toBe(false);
      expect(isSafeImageSrc('data:image/svg+xml;base64,PHN2Zz4=')).toBe(false);
      expect(isSafeImageSrc('ftp://cdn.example/a.png')).toBe(false);
    } finally {
      setMarkdownOptions({ remoteImages: false });
    }
  });
});

describe('copy buttons and links (one delegated handler)', () => {
  it('copies the code of its block', async () => {
    const root = dom(renderMarkdown('```js\nconst a = 1;\n```'));
    document.body.appendChild(root);
    const copy = vi.fn().mockResolvedValue(undefined);
    const open = vi.fn();
    root.addEventListener('click', (e) => handleMarkdownClick(e, { copy, open }));
    root.querySelector<HTMLButtonElement>('.copy-btn')!.click();
    expect(copy).toHaveBeenCalledWith('const a = 1;');
    await Promise.resolve();
    await Promise.resolve();
    expect(root.querySelector('.copy-btn')?.textContent).toBe('Copied');
    root.remove();
  });

  it('opens http(s) links outside and never navigates the page', () => {
    const root = dom(renderMarkdown('[w](https://example.com) [r](other.md)'));
    document.body.appendChild(root);
    const open = vi.fn();
    root.addEventListener('click', (e) => handleMarkdownClick(e, { copy: vi.fn(), open }));
    const [w, r] = root.querySelectorAll('a');
    const e1 = new MouseEvent('click', { bubbles: true, cancelable: true });
    w.dispatchEvent(e1);
    expect(e1.defaultPrevented).toBe(true);
    expect(open).toHaveBeenCalledWith('https://example.com');
    const e2 = new MouseEvent('click', { bubbles: true, cancelable: true });
    r.dispatchEvent(e2);
    expect(e2.defaultPrevented).toBe(true);
    expect(open).toHaveBeenCalledTimes(1);
    root.remove();
  });
});

describe('MarkdownStream (incremental rendering)', () => {
  const DOC = [
    '# Title',
    '',
    'A paragraph with **bold** and `code` and a [link](https://example.com).',
    'Still the same paragraph.',
    '',
    '- one',
    '- two',
    '',
    '  continued item',
    '- three',
    '',
    '```ts',
    'const x: number = 1;',
    '',
    'function f() { return x; }',
    '```',
    '',
    'Setext heading',
    '---',
    '',
    '> quote',
    'lazy line',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    'Ref [x][r] here.',
    '',
    '[r]: https://example.com/r',
    '',
    '1. first',
    '2. second',
    '',
    'End.',
  ].join('\n');

  it('gives the same HTML as a full render at every prefix', () => {
    const s = new MarkdownStream();
    let i = 0;
    let seed = 7;
    while (i < DOC.length) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      i = Math.min(DOC.length, i + 1 + (seed % 9));
      const prefix = DOC.slice(0, i);
      expect(s.update(prefix).join(''), `at ${i}`).toBe(renderMarkdown(prefix));
    }
  });

  it('keeps the HTML of finished blocks (same strings) when the text grows', () => {
    fastRenders();
    const s = new MarkdownStream();
    const a = s.update('para one\n\npara two', true);
    const b = s.update('para one\n\npara two grows', true);
    expect(b[0]).toBe(a[0]);
    expect(b[b.length - 1]).toContain('para two grows');
    const done = s.update('para one\n\npara two grows', false);
    expect(done.join('')).toBe(renderMarkdown('para one\n\npara two grows'));
  });

  it('handles text that is replaced, not appended', () => {
    const s = new MarkdownStream();
    s.update('first version');
    expect(s.update('second').join('')).toBe(renderMarkdown('second'));
  });
});

describe('streaming huge and slow blocks', () => {
  it('splits a huge paragraph into pieces whose earlier ones never change', () => {
    fastRenders();
    const s = new MarkdownStream();
    const word = 'lorem ipsum dolor sit amet ';
    let text = word.repeat(4000); // ~108 KB, one paragraph
    const first = s.update(text, true).flat();
    expect(first.length).toBeGreaterThan(10);
    expect(first.every((h) => h.startsWith('<p class="md-plain">'))).toBe(true);
    text += word.repeat(500) + '<script>alert(1)</script>';
    const second = s.update(text, true).flat();
    expect(second.length).toBeGreaterThanOrEqual(first.length);
    // every finished piece is the same string as before
    expect(second.slice(0, first.length - 1)).toEqual(first.slice(0, first.length - 1));
    expect(second.join('')).not.toContain('<script>');
    expect(second.join('')).toContain('&lt;script&gt;');
    const all = second.map((h) => h.replace(/<[^>]+>/g, '')).join('');
    expect(all.replace(/&lt;/g, '<').replace(/&gt;/g, '>')).toBe(text);
  });

  it('asks to be called again when it skipped a slow re-render', () => {
    const s = new MarkdownStream() as unknown as { lastCost: number; lastAt: number; update: MarkdownStream['update']; retryIn: number };
    s.update('```js\nconst a = 1;\n', true);
    s.lastCost = 50; // pretend the last block took 50 ms to render
    s.lastAt = performance.now();
    s.update('```js\nconst a = 1;\nconst b = 2;\n', true);
    expect(s.retryIn).toBeGreaterThan(0);
    const later = s.update('```js\nconst a = 1;\nconst b = 2;\n', true);
    expect(later.flat().join('')).toBeTruthy();
  });

  it('does not highlight very long code blocks', () => {
    const code = 'const x = 1;\n'.repeat(Math.ceil((MAX_HIGHLIGHT + 10) / 13));
    const html = renderMarkdown('```js\n' + code + '```');
    expect(html).toContain('const x = 1;');
    expect(html).not.toContain('hljs-keyword');
    expect(renderMarkdown('```js\nconst x = 1;\n```')).toContain('hljs-keyword');
  });
});

describe('MarkdownStream: a long paragraph while it streams', () => {
  it('grows as plain pieces past STREAM_PLAIN and is rendered as Markdown once complete', () => {
    // Each update comes long after the last (no throttling in this test).
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 1000));
    const s = new MarkdownStream();
    const word = 'some **bold** words and `code` here. ';
    let text = '';
    let html = '';
    while (text.length < STREAM_PLAIN * 1.5) {
      text += word.repeat(8);
      html = s.update(text, true).flat().join('');
    }
    // Streaming: the last block is plain pieces (no lexing per frame).
    expect(html).toContain('md-plain');
    expect(html).not.toContain('<strong>');
    expect(html).toContain('**bold**');
    // Complete: one real render.
    const done = s.update(text, false).flat().join('');
    expect(done).not.toContain('md-plain');
    expect(done).toContain('<strong>bold</strong>');
    expect(done).toContain('<code>code</code>');
    // And it is stable.
    expect(s.update(text, false).flat().join('')).toBe(done);
    clock.mockRestore();
  });
});

describe('MarkdownStream: a flood far ahead of the screen', () => {
  it('grows a huge block by at most MAX_FRAME_APPEND an update and catches up', () => {
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 1000));
    const s = new MarkdownStream();
    const word = 'lorem ipsum dolor sit amet ';
    let text = word.repeat(Math.ceil((STREAM_PLAIN * 1.2) / word.length));
    s.update(text, true);
    s.update(text + word, true); // now a plain-pieces block
    text += word.repeat(Math.ceil(200_000 / word.length)); // 200 KB arrive at once
    const shown = (html: string) => html.replace(/<[^>]+>/g, '').length;
    let html = s.update(text, true).flat().join('');
    expect(s.retryIn).toBeGreaterThan(0);
    expect(shown(html)).toBeLessThan(STREAM_PLAIN * 1.2 + MAX_FRAME_APPEND + 2 * word.length);
    let n = 0;
    while (s.retryIn > 0 && n++ < 50) html = s.update(text, true).flat().join('');
    expect(n).toBeGreaterThan(3);
    expect(shown(html)).toBe(text.length);
    // The end of the stream: complete and final.
    html = s.update(text, false).flat().join('');
    expect(shown(html)).toBe(text.length);
    expect(s.retryIn).toBe(0);
    clock.mockRestore();
  });
});

describe('MarkdownStream: a flood that starts long', () => {
  it('shows a long first line as plain pieces without lexing it, then renders it once complete', () => {
    const s = new MarkdownStream();
    const text = 'some **bold** text, '.repeat(2000); // 40 KB, one line (under HUGE_BLOCK)
    const streaming = s.update(text, true).flat().join('');
    expect(streaming).toContain('md-plain');
    expect(streaming).not.toContain('<strong>');
    const done = s.update(text, false).flat().join('');
    expect(done).not.toContain('md-plain');
    expect(done).toContain('<strong>bold</strong>');
  });

  it('still lexes a long line that starts another kind of block', () => {
    const s = new MarkdownStream();
    const html = s.update('# ' + 'title words '.repeat(3000), true).flat().join('');
    expect(html).toContain('<h1');
  });
});

describe('embeds ![[…]] (Obsidian)', () => {
  it('an image embed is an image the notes preview loads by its name, at the width given', () => {
    const root = dom(renderMarkdown('前 ![[附件/图 1.png|320]] 后\n\n![[截图.webp|说明]]'));
    const [a, b] = root.querySelectorAll('img');
    expect(a.className).toBe('md-embed');
    expect(a.getAttribute('data-embed')).toBe('附件/图 1.png|320');
    expect(a.getAttribute('width')).toBe('320');
    expect(a.getAttribute('alt')).toBe('图 1.png');
    expect(a.hasAttribute('src')).toBe(false); // loaded by the preview, never by the page
    expect(b.getAttribute('alt')).toBe('说明');
    expect(b.hasAttribute('width')).toBe(false);
    expect(root.textContent).not.toContain('!');
  });

  it('a file embed and a note embed are links that open them', () => {
    const root = dom(renderMarkdown('![[报告.pdf]] ![[缓存设计#结果]]'));
    const [f, n] = root.querySelectorAll('a');
    expect(f.className).toBe('md-wikilink md-embed-file');
    expect(f.getAttribute('data-wiki')).toBe('报告.pdf');
    expect(f.textContent).toBe('报告.pdf');
    expect(n.className).toBe('md-wikilink md-embed-note');
    expect(n.textContent).toBe('缓存设计 › 结果');
    expect(f.hasAttribute('href') || n.hasAttribute('href')).toBe(false);
  });

  it('in code it stays text', () => {
    const root = dom(renderMarkdown('`![[a.png]]`\n\n```\n![[b.png]]\n```'));
    expect(root.querySelectorAll('img')).toHaveLength(0);
    expect(root.textContent).toContain('![[a.png]]');
  });

  it('raw HTML cannot borrow what an embed carries (data-embed, a width that is no number)', () => {
    const root = dom(
      sanitize('<a data-embed="x.png" class="md-embed">a</a><img class="md-local" data-embed="y.png" width="100%;x" height="5"><img class="md-embed" data-embed="z.png" width="javascript:1">'),
    );
    const [i1, i2] = root.querySelectorAll('img');
    expect(root.querySelector('a')?.hasAttribute('data-embed')).toBe(false);
    expect(i1.hasAttribute('data-embed')).toBe(false);
    expect(i1.hasAttribute('width')).toBe(false);
    expect(i1.getAttribute('height')).toBe('5');
    expect(i2.getAttribute('data-embed')).toBe('z.png');
    expect(i2.hasAttribute('width')).toBe(false);
    assertInert(root);
  });
});

describe('==highlight== (Obsidian)', () => {
  it('renders as <mark>, Markdown inside it too; === and == alone stay text', () => {
    const root = dom(renderMarkdown('命中率==**很高**，要记住==。a === b，c == d'));
    const mk = root.querySelectorAll('mark');
    expect(mk).toHaveLength(1);
    expect(mk[0].innerHTML).toBe('<strong>很高</strong>，要记住');
    expect(root.textContent).toContain('a === b，c == d');
  });
});

describe('emphasis next to Chinese (CJK-friendly)', () => {
  it.each([
    ['**重点：**内容', '<strong>重点：</strong>内容'],
    ['这是**“重点”**内容', '这是<strong>“重点”</strong>内容'],
    ['这是**（注意）**的', '这是<strong>（注意）</strong>的'],
    ['文字**「引用」**文字', '文字<strong>「引用」</strong>文字'],
    ['这是*“斜体”*呢', '这是<em>“斜体”</em>呢'],
    ['命中率**很高**。', '命中率<strong>很高</strong>。'],
  ])('%s', (src, html) => {
    expect(dom(renderMarkdown(src)).querySelector('p')?.innerHTML).toBe(html);
  });

  it('leaves English as CommonMark has it', () => {
    expect(dom(renderMarkdown('a**"quoted"**b and 2*3*4')).querySelector('p')?.innerHTML).toBe('a**"quoted"**b and 2<em>3</em>4');
  });
});

describe('callouts (Obsidian)', () => {
  it('"> [!tip] 标题" is a callout of that kind with that title, its other lines the body', () => {
    const root = dom(renderMarkdown('> [!tip] 提示 **重点**\n> 写下来\n> - [ ] 任务\n\n> [!WARNING]\n> 小心\n\n> [!custom]- 折叠的\n> 内容\n\n> 普通引用'));
    const [tip, warn, other] = root.querySelectorAll('.md-callout');
    expect(tip.className).toBe('md-callout md-callout-tip');
    expect(tip.querySelector('.md-callout-title')?.innerHTML).toBe('提示 <strong>重点</strong>');
    expect(tip.querySelector('p')?.textContent).toBe('写下来');
    expect(tip.querySelector('input.md-task')).not.toBeNull();
    expect(warn.className).toBe('md-callout md-callout-warning');
    expect(warn.querySelector('.md-callout-title')?.textContent).toBe('Warning');
    expect(warn.querySelector('p')?.textContent).toBe('小心');
    expect(other.className).toBe('md-callout md-callout-note'); // an unknown kind: a note
    expect(other.querySelector('.md-callout-title')?.textContent).toBe('折叠的');
    expect(root.querySelectorAll('blockquote')).toHaveLength(1); // the plain quote
    expect(root.textContent).not.toContain('[!');
  });

  it('a callout title cannot carry markup out of the sanitizer', () => {
    const root = dom(renderMarkdown('> [!note] <img src=x onerror=alert(1)> [x](javascript:alert(1))\n> body'));
    assertInert(root);
    expect(root.querySelector('.md-callout-title img')).toBeNull();
  });
});
