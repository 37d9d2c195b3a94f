import { afterEach, describe, expect, it } from 'vitest';
import { countText, isCJK, joinLines, joinsTight } from '../src/lib/cjk';
import { MarkdownStream, renderMarkdown } from '../src/lib/markdown';
import { writePrefs } from '../src/lib/writeprefs.svelte';

function text(html: string): string {
  const d = document.createElement('div');
  d.innerHTML = html;
  return d.innerHTML;
}

describe('CJK line breaks', () => {
  afterEach(() => writePrefs.setStrictBreaks(false));

  it('joins two CJK characters with nothing, anything else with a space', () => {
    expect(isCJK('命'.codePointAt(0) ?? 0)).toBe(true);
    expect(isCJK('。'.codePointAt(0) ?? 0)).toBe(true);
    expect(isCJK('，'.codePointAt(0) ?? 0)).toBe(true);
    expect(isCJK('𠀀'.codePointAt(0) ?? 0)).toBe(true);
    expect(isCJK('한'.codePointAt(0) ?? 0)).toBe(false);
    expect(isCJK('a'.codePointAt(0) ?? 0)).toBe(false);
    expect(joinsTight('命中率。', '第一次')).toBe(true);
    expect(joinsTight('cache', '第一次')).toBe(false);
    expect(joinLines('命中率。\n第一次')).toBe('命中率。第一次');
    expect(joinLines('命中率  \n  第一次')).toBe('命中率第一次');
    expect(joinLines('hit rate\nfirst')).toBe('hit rate first');
    expect(joinLines('缓存\nLRU\n策略')).toBe('缓存 LRU 策略');
    expect(joinLines('𠀀\n𠀁')).toBe('𠀀𠀁');
  });

  it('shows each line break as one by default', () => {
    const html = renderMarkdown('命中率。\n第一次\n\nhit rate\nfirst');
    expect(html).toContain('命中率。<br>第一次');
    expect(html).toContain('hit rate<br>first');
  });

  it('strict: joins CJK lines with nothing, across emphasis too, and Latin ones with a space', () => {
    writePrefs.setStrictBreaks(true);
    const html = text(renderMarkdown('命中率。\n第一次\n\n缓存\n**命中**\n\nhit rate\nfirst\n\n> 引用\n> 第二行\n\n- 一项\n  续行'));
    expect(html).toContain('命中率。第一次');
    expect(html).not.toContain('<br>');
    expect(html).toContain('缓存<strong>命中</strong>');
    expect(html).toMatch(/hit rate\sfirst/);
    expect(html).toContain('引用第二行');
    expect(html).toContain('一项续行');
  });

  it('a stream renders again when the setting changes', () => {
    const s = new MarkdownStream();
    expect(s.update('命中率。\n第一次').join('')).toContain('<br>');
    writePrefs.setStrictBreaks(true);
    expect(s.update('命中率。\n第一次').join('')).toContain('命中率。第一次');
  });
});

describe('word count', () => {
  it('counts each Chinese character as a word, Latin words by runs, not punctuation', () => {
    expect(countText('')).toEqual({ words: 0, chars: 0 });
    expect(countText('缓存设计')).toEqual({ words: 4, chars: 4 });
    expect(countText('命中率。第一次')).toEqual({ words: 6, chars: 7 });
    expect(countText('hello world')).toEqual({ words: 2, chars: 11 });
    expect(countText('用LRU缓存，don\'t e-mail 3.14')).toEqual({ words: 7, chars: 24 });
    expect(countText('第一行\n第二行')).toEqual({ words: 6, chars: 6 });
    expect(countText('カタカナとひらがな')).toEqual({ words: 9, chars: 9 });
    expect(countText('한국어 단어')).toEqual({ words: 2, chars: 6 });
    expect(countText('𠀀𠀁')).toEqual({ words: 2, chars: 2 });
  });
});
