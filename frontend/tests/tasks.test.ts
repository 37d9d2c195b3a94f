// Task-list boxes: the toggle function on many Markdown shapes (lib/tasks.ts),
// and the source line each rendered box names (lib/markdown.ts).
import { describe, expect, it } from 'vitest';
import { MarkdownStream, renderMarkdown } from '../src/lib/markdown';
import { lineOf, taskBox, toggleLine, toggleTask } from '../src/lib/tasks';

/** Every rendered box: its absolute source line (block line + its own) and whether it is ticked. */
function boxes(src: string): { line: number; checked: boolean }[] {
  const stream = new MarkdownStream();
  const htmls = stream.update(src);
  const lines = stream.lines();
  const out: { line: number; checked: boolean }[] = [];
  htmls.forEach((h, i) => {
    if (typeof h !== 'string' || !h) return;
    const div = document.createElement('div');
    div.innerHTML = h;
    for (const b of div.querySelectorAll('input')) {
      const rel = b.getAttribute('data-line');
      expect(rel).toMatch(/^\d+$/);
      out.push({ line: lines[i] + Number(rel), checked: b.hasAttribute('checked') });
    }
  });
  return out;
}

/** Every task box, found line by line in the source. */
function sourceBoxes(src: string): { line: number; checked: boolean }[] {
  return src
    .split('\n')
    .map((l, i) => ({ line: i + 1, box: taskBox(l) }))
    .filter((x) => x.box)
    .map((x) => ({ line: x.line, checked: x.box!.checked }));
}

describe('taskBox', () => {
  it.each([
    ['- [ ] a', 3, false],
    ['- [x] a', 3, true],
    ['- [X] a', 3, true],
    ['* [ ] a', 3, false],
    ['+ [x] a', 3, true],
    ['1. [ ] a', 4, false],
    ['12) [x] a', 5, true],
    ['    - [ ] nested', 7, false],
    ['\t- [ ] tab', 4, false],
    ['> - [ ] quoted', 5, false],
    ['>- [x] tight quote', 4, true],
    ['> > 1. [ ] deep', 8, false],
    ['- > - [ ] list, quote, list', 7, false],
    ['- [ ]', 3, false],
    ['- [ ] 买牛奶', 3, false],
    ['- [x]\t事项', 3, true],
    ['- [ ] crlf\r', 3, false],
  ])('%j has its box at %i', (line, col, checked) => {
    expect(taskBox(line)).toEqual({ col, checked });
  });

  it.each(['[ ] no marker', '-[ ] no space', '- [y] other mark', '- [ ]x glued', '- [  ] two spaces', '> [ ] quote only', 'text - [ ] later', '1.[ ] x', '', '- plain item', '1234567890. [ ] too long'])(
    '%j is no task',
    (line) => {
      expect(taskBox(line)).toBeNull();
    },
  );
});

describe('toggleTask', () => {
  it('ticks and unticks exactly one character of that line', () => {
    const src = '# Plan\n\n- [ ] one\n- [x] two\n  - [ ] nested\n1. [ ] ordered\n';
    const a = toggleTask(src, 3)!;
    expect(a.text).toBe('# Plan\n\n- [x] one\n- [x] two\n  - [ ] nested\n1. [ ] ordered\n');
    expect(a).toMatchObject({ from: src.indexOf('[ ] one') + 1, insert: 'x', checked: true });
    expect(toggleTask(src, 4)!.text).toBe('# Plan\n\n- [ ] one\n- [ ] two\n  - [ ] nested\n1. [ ] ordered\n');
    expect(toggleTask(src, 5)!.text).toBe('# Plan\n\n- [ ] one\n- [x] two\n  - [x] nested\n1. [ ] ordered\n');
    expect(toggleTask(src, 6)!.text).toBe('# Plan\n\n- [ ] one\n- [x] two\n  - [ ] nested\n1. [x] ordered\n');
    // Twice is the text it started as.
    expect(toggleTask(toggleTask(src, 5)!.text, 5)!.text).toBe(src);
  });

  it('keeps CRLF line breaks and an uppercase X is unticked', () => {
    const src = 'a\r\n- [X] done\r\n- [ ] todo\r\n';
    expect(toggleTask(src, 2)!.text).toBe('a\r\n- [ ] done\r\n- [ ] todo\r\n');
    expect(toggleTask(src, 3)!.text).toBe('a\r\n- [X] done\r\n- [x] todo\r\n');
    expect(toggleTask(src, 3, '- [ ] todo')).not.toBeNull(); // the \r is not part of the line
  });

  it('ticks items inside quotes, and with CJK text around', () => {
    const src = '> 引用：\n> - [ ] 买牛奶 🥛\n> > 2) [x] 写周报\n';
    expect(toggleTask(src, 2)!.text).toBe('> 引用：\n> - [x] 买牛奶 🥛\n> > 2) [x] 写周报\n');
    expect(toggleTask(src, 3)!.text).toBe('> 引用：\n> - [ ] 买牛奶 🥛\n> > 2) [ ] 写周报\n');
    // The offset is in UTF-16 units, after an emoji on an earlier line.
    const s2 = '🥛 emoji\n- [ ] 任务';
    const t = toggleTask(s2, 2)!;
    expect(s2.slice(0, t.from) + t.insert + s2.slice(t.from + 1)).toBe('🥛 emoji\n- [x] 任务');
  });

  it('makes no edit when the line changed under it, holds no task, or is past the end', () => {
    const src = '- [ ] one\n- [ ] two\n';
    expect(toggleTask(src, 2, '- [ ] one')).toBeNull(); // a line was inserted above: line 2 is not what was clicked
    expect(toggleTask(src, 1, '- [x] one')).toBeNull(); // ticked meanwhile
    expect(toggleTask(src, 1, '- [ ] one')!.text).toBe('- [x] one\n- [ ] two\n');
    expect(toggleTask('plain\n', 1)).toBeNull();
    expect(toggleTask(src, 9)).toBeNull();
    expect(toggleTask(src, 0)).toBeNull();
    expect(toggleLine('- [ ] x', '- [ ] y')).toBeNull();
    expect(lineOf('a\nb', 2)).toEqual({ from: 2, text: 'b' });
    expect(lineOf('a\nb\n', 3)).toEqual({ from: 4, text: '' });
  });
});

describe('rendered boxes name their source line', () => {
  it.each([
    ['tight list', '# T\n\n- [ ] a\n- [x] b\n- [ ] c\n'],
    ['loose list', 'intro\n\n- [ ] a\n\n- [x] b\n\n  more of b\n\n- [ ] c\n'],
    ['nested lists', '- [ ] top\n  - [x] child\n    - [ ] grandchild\n  - [ ] child 2\n- [x] top 2\n'],
    ['ordered lists', '1. [ ] one\n2. [x] two\n   1) [ ] inner\n10. [ ] ten\n'],
    ['other bullets', '* [ ] star\n* [x] star 2\n\n+ [ ] plus\n+ [x] plus 2\n'],
    ['quotes', 'text\n\n> - [ ] quoted\n> - [x] quoted 2\n>\n> > - [ ] deeper\n'],
    ['a list in a quote in a list', '- item\n  > - [ ] inside\n  > - [x] inside 2\n- [ ] after\n'],
    ['CJK items', '# 待办\n\n- [ ] 买牛奶\n- [x] 写周报 🎉\n  - [ ] 子任务：检查\n'],
    ['between other blocks', '# H\n\npara\n\n```\n- [ ] not a task (code)\n```\n\n- [ ] real\n\n| a |\n|---|\n| b |\n\n- [x] real 2\n'],
    ['multi-line items', '- [ ] first line\n  continues here\n  and here\n- [x] second\n\n  paragraph of second\n- [ ] third\n'],
  ])('%s', (_name, src) => {
    const got = boxes(src);
    const want = sourceBoxes(src).filter((b) => !src.split('\n')[b.line - 1].includes('not a task'));
    expect(got).toEqual(want);
    expect(got.length).toBeGreaterThan(0);
  });

  it('counts CRLF lines the same', () => {
    const src = '# T\r\n\r\n- [ ] a\r\n  - [x] b\r\n';
    expect(boxes(src)).toEqual([
      { line: 3, checked: false },
      { line: 4, checked: true },
    ]);
  });

  it('starts each block at its line, after an edit in the middle too', () => {
    const s = new MarkdownStream();
    // The lines of the blocks shown (space between blocks renders nothing).
    const shown = (src: string) => {
      const htmls = s.update(src);
      return s.lines().filter((_, i) => htmls[i] !== '');
    };
    expect(shown('# A\n\npara\n\n- [ ] x\n')).toEqual([1, 3, 5]);
    expect(shown('# A\n\npara\nmore\n\n\n- [ ] x\n> q\n')).toEqual([1, 3, 7, 8]);
    expect(shown('\n\n# A\r\n\r\ntext')).toEqual([3, 5]);
  });

  it('keeps the chat boxes read-only', () => {
    const html = renderMarkdown('- [ ] a\n');
    expect(html).toContain('disabled');
    expect(html).toContain('data-line="0"');
  });
});
