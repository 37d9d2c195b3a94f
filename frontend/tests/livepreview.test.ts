// Live preview in the note editor: markup hidden off the cursor's lines,
// shown on it; task boxes tick (undoably); links follow on a plain click and
// a wikilink no note answers is marked; tables render while the cursor is
// outside them; switching to source shows the text as typed.
import { afterEach, describe, expect, it } from 'vitest';
import { undo } from '@codemirror/commands';
import { forceParsing, syntaxTree } from '@codemirror/language';
import { EditorSelection } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { isLive, makeState, setLive, type EditorHooks } from '../src/lib/cm';
import type { LineLink } from '../src/lib/links';

let view: EditorView | null = null;
afterEach(() => {
  view?.destroy();
  view = null;
  document.body.innerHTML = '';
});

const NOTE = [
  '# 缓存设计', // 1
  '', // 2
  '命中率 **很高**，*斜体* ~~删除~~ 与 `code` 。', // 3
  '见 [[实验记录]] 和 [[缓存设计|本文]] 以及 [官网](https://example.com)。', // 4
  '- [ ] 买菜', // 5
  '- [x] 做饭', // 6
  '- 普通一项', // 7
  '', // 8
  '| 名称 | 值 |', // 9
  '| --- | --- |', // 10
  '| 甲 | 1 |', // 11
  '', // 12
  '> [!warning] 小心', // 13
  '> 引用内容', // 14
  '', // 15
  '---', // 16
  '', // 17
  '```go', // 18
  'func main() {}', // 19
  '```', // 20
  '', // 21
  '![点](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==)', // 22
  '末行', // 23
].join('\n');

function editor(doc: string, hooks: Partial<EditorHooks> = {}, live = true): EditorView {
  const parent = document.createElement('div');
  document.body.append(parent);
  const all: EditorHooks = { change: () => {}, select: () => {}, ...hooks };
  view = new EditorView({ state: makeState(doc, all, live), parent });
  forceParsing(view, doc.length, 10_000); // the whole note parsed, however loaded the machine
  // The cursor on the last line: every other line shows rendered.
  view.dispatch({ selection: EditorSelection.cursor(doc.length) });
  return view;
}

/** The text a line shows (1-based). */
function lineText(v: EditorView, n: number): string {
  const dom = v.domAtPos(v.state.doc.line(n).from + (v.state.doc.line(n).length ? 1 : 0)).node;
  const el = (dom.nodeType === 1 ? dom : dom.parentElement) as HTMLElement;
  return (el.closest('.cm-line') as HTMLElement).textContent ?? '';
}

function lineEl(v: EditorView, n: number): HTMLElement {
  const dom = v.domAtPos(v.state.doc.line(n).from).node;
  const el = (dom.nodeType === 1 ? dom : dom.parentElement) as HTMLElement;
  return el.closest('.cm-line') as HTMLElement;
}

function mousedown(el: Element): void {
  el.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, cancelable: true, button: 0 }));
}

describe('live preview', () => {
  it('hides the markup off the cursor line and shows it on it', () => {
    const v = editor(NOTE);
    expect(lineEl(v, 1).classList.contains('cm-lp-h1')).toBe(true);
    expect(lineText(v, 1)).toBe('缓存设计');
    expect(lineText(v, 3)).toBe('命中率 很高，斜体 删除 与 code 。');
    expect(v.contentDOM.querySelector('.cm-lp-icode')?.textContent).toBe('code');
    expect(lineText(v, 4)).toBe('见 实验记录 和 本文 以及 官网。');
    // The cursor on the heading: its # shows.
    v.dispatch({ selection: EditorSelection.cursor(2) });
    expect(lineText(v, 1)).toBe('# 缓存设计');
    expect(lineText(v, 3)).toBe('命中率 很高，斜体 删除 与 code 。');
  });

  it('in source mode the text is as typed, and back', () => {
    const v = editor(NOTE);
    setLive(v, false);
    expect(isLive(v.state)).toBe(false);
    expect(lineText(v, 1)).toBe('# 缓存设计');
    expect(v.contentDOM.querySelector('.cm-lp-task')).toBeNull();
    setLive(v, true);
    expect(lineText(v, 1)).toBe('缓存设计');
  });

  it('task boxes are checkboxes; a click ticks the line as an undoable edit', () => {
    const v = editor(NOTE);
    const boxes = [...v.contentDOM.querySelectorAll<HTMLInputElement>('input.cm-lp-task')];
    expect(boxes.map((b) => b.checked)).toEqual([false, true]);
    expect(lineText(v, 5)).toBe(' 买菜');
    expect(lineText(v, 7)).toBe('• 普通一项');
    mousedown(boxes[0]);
    expect(v.state.doc.line(5).text).toBe('- [x] 买菜');
    expect([...v.contentDOM.querySelectorAll<HTMLInputElement>('input.cm-lp-task')].map((b) => b.checked)).toEqual([true, true]);
    undo(v);
    expect(v.state.doc.line(5).text).toBe('- [ ] 买菜');
  });

  it('a plain click on a link follows it; a wikilink no note answers is marked', () => {
    const opened: LineLink[] = [];
    const v = editor(NOTE, {
      openLink: (l) => opened.push(l),
      resolveLink: (l) => (l.kind === 'wiki' ? l.target === '缓存设计' : null),
    });
    const links = [...v.contentDOM.querySelectorAll('.cm-lp-link')];
    expect(links.map((l) => l.textContent)).toEqual(['实验记录', '本文', '官网']);
    mousedown(links[0]);
    mousedown(links[2]);
    expect(opened).toMatchObject([
      { kind: 'wiki', target: '实验记录' },
      { kind: 'md', href: 'https://example.com' },
    ]);
    // The one no note answers is marked (cmlinks.ts), around what shows of it.
    expect([...v.contentDOM.querySelectorAll('.cm-link-unresolved')].map((e) => e.textContent)).toEqual(['实验记录']);
  });

  it('a table renders while the cursor is outside it; inside, its source shows', () => {
    const v = editor(NOTE);
    const table = v.dom.querySelector('.cm-lp-table table');
    expect(table?.querySelectorAll('th').length).toBe(2);
    expect(table?.textContent).toContain('甲');
    v.dispatch({ selection: EditorSelection.cursor(v.state.doc.line(11).from + 2) });
    expect(v.dom.querySelector('.cm-lp-table')).toBeNull();
    expect(lineText(v, 9)).toBe('| 名称 | 值 |');
  });

  it('callouts, rules, code blocks and images are drawn', () => {
    const v = editor(NOTE);
    expect(lineEl(v, 13).className).toContain('cm-lp-callout-warning');
    expect(lineText(v, 13)).toBe('小心');
    expect(lineText(v, 14)).toBe('引用内容');
    expect(lineEl(v, 16).classList.contains('cm-lp-hr')).toBe(true);
    expect(lineText(v, 16)).toBe('');
    expect(lineEl(v, 19).classList.contains('cm-lp-code')).toBe(true);
    expect(lineEl(v, 19).querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(lineText(v, 18)).toBe('go');
    const img = v.contentDOM.querySelector<HTMLImageElement>('img.cm-lp-img');
    expect(img?.alt).toBe('点');
    expect(img?.src.startsWith('data:image/png;base64,')).toBe(true);
  });

  it('in a rendered table, a click on a link follows it and an image of the notes folder loads through the app', async () => {
    const opened: LineLink[] = [];
    const asked: string[] = [];
    const doc = ['| 链接 | 图 |', '| --- | --- |', '| [[实验记录]] [官网](https://example.com) | ![图](附件/图.png) |', '', '末'].join('\n');
    const v = editor(doc, { openLink: (l) => opened.push(l), imageURL: async (href) => (asked.push(href), 'data:image/png;base64,AAAA') });
    const table = v.dom.querySelector('.cm-lp-table');
    const links = [...(table?.querySelectorAll('a') ?? [])];
    expect(links.map((a) => a.textContent)).toEqual(['实验记录', '官网']);
    mousedown(links[0]);
    mousedown(links[1]);
    expect(opened).toMatchObject([
      { kind: 'wiki', target: '实验记录' },
      { kind: 'md', href: 'https://example.com' },
    ]);
    expect(v.state.selection.main.head).toBe(doc.length); // following a link leaves the cursor where it was
    expect(asked).toEqual(['附件/图.png']);
    await Promise.resolve();
    expect(table?.querySelector('img')?.getAttribute('src')).toBe('data:image/png;base64,AAAA');
    // A click beside the links puts the cursor in the table, which shows its source.
    mousedown(table!.querySelector('th')!);
    expect(v.dom.querySelector('.cm-lp-table')).toBeNull();
  });

  it('a callout nested in another shows its own bar, colour and title; the outer keeps its own', () => {
    const doc = ['> [!note] 外层', '> 外层内容', '> > [!tip] 内层', '> > 内层内容', '> > > 更深的引用', '', '末'].join('\n');
    const v = editor(doc);
    expect(lineEl(v, 1).className).toContain('cm-lp-callout-note');
    expect(lineText(v, 1)).toBe('外层');
    for (const n of [3, 4, 5]) {
      expect(lineEl(v, n).classList.contains('cm-lp-callout')).toBe(true); // inside the outer box
      expect(lineEl(v, n).classList.contains('cm-lp-quote')).toBe(false);
      expect(lineEl(v, n).classList.contains('cm-lp-inner')).toBe(true);
    }
    expect(lineEl(v, 3).className).toContain('cm-lp-inner-tip');
    expect(lineEl(v, 3).classList.contains('cm-lp-inner-title')).toBe(true);
    expect(lineText(v, 3)).toBe('内层');
    expect(lineText(v, 4)).toBe('内层内容');
    expect(lineText(v, 5)).toBe('更深的引用');
    // On the cursor's line the markup shows as typed.
    v.dispatch({ selection: EditorSelection.cursor(v.state.doc.line(3).to) });
    expect(lineText(v, 3)).toBe('> > [!tip] 内层');
  });

  it('front matter shows as data, as typed, not as a rule and a heading (both modes)', () => {
    const doc = ['---', 'title: 缓存设计', 'tags: [技术, 缓存]', '---', '# 缓存设计', '', '末'].join('\n');
    for (const live of [true, false]) {
      const v = editor(doc, {}, live);
      for (const n of [1, 2, 3, 4]) {
        const cls = lineEl(v, n).className;
        expect(cls).toContain('cm-frontmatter');
        expect(cls).not.toMatch(/cm-lp-(h|hr)\b/);
      }
      expect([1, 2, 3, 4].map((n) => lineText(v, n))).toEqual(['---', 'title: 缓存设计', 'tags: [技术, 缓存]', '---']);
      expect(lineEl(v, 5).className).not.toContain('cm-frontmatter');
      if (live) expect(lineText(v, 5)).toBe('缓存设计'); // the note's own heading is drawn
      view?.destroy();
      view = null;
    }
  });

  it('an image of the notes folder loads through the app (imageURL, relative to the note)', async () => {
    const asked: string[] = [];
    const v = editor('![图](../附件/图.png)\n末', { imageURL: async (href) => (asked.push(href), 'data:image/png;base64,AAAA') });
    expect(asked).toEqual(['../附件/图.png']);
    await Promise.resolve();
    expect(v.contentDOM.querySelector<HTMLImageElement>('img.cm-lp-img')?.getAttribute('src')).toBe('data:image/png;base64,AAAA');
  });

  it('an embed ![[图 1.png|240]] shows the image its name finds (embedURL), at that width; on the line being edited its markup shows with it', async () => {
    const asked: string[] = [];
    const v = editor('前 ![[图 1.png|240]] 后\n![[报告.pdf]] 和 ![[缓存设计]]\n末', {
      embedURL: async (target) => (asked.push(target), 'data:image/png;base64,AAAA'),
    });
    expect(asked).toEqual(['图 1.png']);
    await Promise.resolve();
    const img = v.contentDOM.querySelector<HTMLImageElement>('img.cm-lp-img');
    expect(img?.getAttribute('src')).toBe('data:image/png;base64,AAAA');
    expect(img?.width).toBe(240);
    expect(img?.alt).toBe('图 1.png');
    expect(lineText(v, 1)).toBe('前  后'); // the markup is the image
    // A file and a note: their links, the "!" hidden with the brackets.
    expect(lineText(v, 2)).toBe('报告.pdf 和 缓存设计');
    expect(lineEl(v, 2).querySelectorAll('.cm-lp-wikilink').length).toBe(2);
    v.dispatch({ selection: EditorSelection.cursor(2) });
    expect(lineText(v, 1)).toBe('前 ![[图 1.png|240]] 后');
    expect(v.contentDOM.querySelector('img.cm-lp-img')).not.toBeNull(); // still shown, after its markup
  });

  it('an embed in a table cell loads by its name too', async () => {
    const asked: string[] = [];
    const v = editor('| 图 | 说明 |\n| --- | --- |\n| ![[图 1.png]] | 红点 |\n\n末', { embedURL: async (t) => (asked.push(t), 'data:image/png;base64,AAAA') });
    await Promise.resolve();
    expect(asked).toEqual(['图 1.png']);
    expect(v.contentDOM.querySelector<HTMLImageElement>('.cm-lp-table img.md-embed')?.getAttribute('src')).toBe('data:image/png;base64,AAAA');
  });

  it('a note embedded on a line of its own shows as a block (showEmbeds fills it); on the cursor line its source shows', () => {
    const shown: HTMLElement[] = [];
    const v = editor('前\n\n![[缓存设计#结果]]\n\n后 ![[其他]] 同行\n末', { showEmbeds: (root) => void shown.push(root) });
    expect(shown).toHaveLength(1); // the one alone on its line
    expect(shown[0].className).toBe('cm-lp-embed md');
    expect(shown[0].querySelector('a.md-embed-note')?.getAttribute('data-wiki')).toBe('缓存设计#结果');
    expect(shown[0].querySelector('a.md-embed-note')?.textContent).toBe('缓存设计 › 结果');
    expect(v.contentDOM.contains(shown[0])).toBe(true);
    v.dispatch({ selection: EditorSelection.cursor(4) });
    expect(v.contentDOM.contains(shown[0])).toBe(false);
    expect(lineText(v, 3)).toBe('![[缓存设计#结果]]');
  });

  it('an embed whose name finds no image shows its name as missing', async () => {
    const v = editor('![[没有.png]]\n末', { embedURL: async () => null });
    await Promise.resolve();
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 50)); // the editor's DOM observer has looked
    expect(v.contentDOM.querySelector('img.cm-lp-img')).toBeNull();
    expect(v.contentDOM.querySelector('.cm-lp-img-missing')?.textContent).toContain('没有.png');
    // and the note is as written: the placeholder is never read as typed text
    expect(v.state.doc.toString()).toBe('![[没有.png]]\n末');
  });

  it('an image of the notes folder that cannot be loaded leaves the note as written', async () => {
    const doc = '# 周报\n![截图](附件/没有.png) 之后的字\n末';
    const v = editor(doc, { imageURL: async () => null });
    await new Promise((r) => setTimeout(r, 50));
    expect(v.contentDOM.querySelector('.cm-lp-img-missing')?.textContent).toContain('截图');
    expect(v.state.doc.toString()).toBe(doc);
  });

  it('==highlight== is drawn marked, its == hidden off the cursor line; Ctrl+B bolds the selection', () => {
    const v = editor('命中率==很高==。\n末');
    expect(lineText(v, 1)).toBe('命中率很高。');
    expect(lineEl(v, 1).innerHTML).toContain('很高');
    v.dispatch({ selection: EditorSelection.cursor(1) });
    expect(lineText(v, 1)).toBe('命中率==很高==。');
    v.dispatch({ selection: EditorSelection.range(0, 3) });
    v.contentDOM.dispatchEvent(new KeyboardEvent('keydown', { key: 'b', code: 'KeyB', keyCode: 66, ctrlKey: true, bubbles: true, cancelable: true }));
    expect(v.state.doc.line(1).text).toBe('**命中率**==很高==。');
    v.contentDOM.dispatchEvent(new KeyboardEvent('keydown', { key: 'H', code: 'KeyH', keyCode: 72, ctrlKey: true, shiftKey: true, bubbles: true, cancelable: true }));
    expect(v.state.doc.line(1).text).toBe('**==命中率==**==很高==。');
  });

  it('emphasis next to Chinese punctuation is bold, as the preview has it (CJK-friendly); English stays CommonMark', () => {
    const v = editor('**重点：**内容\n这是**“引用”**文字\n这是*（注）*呢\na**"quoted"**b\n末');
    expect(lineText(v, 1)).toBe('重点：内容');
    expect(lineText(v, 2)).toBe('这是“引用”文字');
    expect(lineText(v, 3)).toBe('这是（注）呢');
    expect(lineText(v, 4)).toBe('a**"quoted"**b');
    const tree = syntaxTree(v.state);
    const names: string[] = [];
    tree.iterate({ from: 0, to: v.state.doc.line(3).to, enter: (n) => void names.push(n.name) });
    expect(names.filter((n) => n === 'StrongEmphasis')).toHaveLength(2);
    expect(names.filter((n) => n === 'Emphasis')).toHaveLength(1);
  });

  it('images from elsewhere are not loaded (the preview pane rule)', () => {
    const v = editor('![外链](http://evil.example/x.png)\n末');
    expect(v.contentDOM.querySelector('img.cm-lp-img')).toBeNull();
    expect(v.contentDOM.querySelector('.cm-lp-img-missing')?.textContent).toContain('外链');
  });
});
