import { describe, expect, it } from 'vitest';
import { snippetPlain } from '../src/lib/format';

describe('snippetPlain (history search snippets without Markdown)', () => {
  it('drops block markers and emphasis, keeps the « » marks', () => {
    expect(snippetPlain('## 缓存«命中率»\n- **粗体**和`代码`\n> 引用「[[实验记录|记录]]」')).toBe('缓存«命中率» 粗体和代码 引用「记录」');
    expect(snippetPlain('1. 第一\n2. 第二\n- [x] 完成 ~~删掉~~')).toBe('第一 第二 完成 删掉');
  });
  it('keeps the text of links and images, also of a link cut by the snippet', () => {
    expect(snippetPlain('…the [«cache» docs](http://x/y.md) and ![a chart](a.png), see [[notes/plan]]')).toBe(
      '…the «cache» docs and a chart, see notes/plan',
    );
    expect(snippetPlain('docs](http://x) then more')).toBe('docs then more');
  });
  it('takes emphasis marks, not the underscores and stars of words', () => {
    expect(snippetPlain('*em* and _it_ in snake_case and 2*3*4')).toBe('em and it in snake_case and 2*3*4');
  });
  it('drops fences, rules and table pipes', () => {
    expect(snippetPlain('| 名称 | 值 |\n|---|---|\n```go\nfmt.Println()\n```\n---')).toBe('名称 值 fmt.Println()');
  });
  it('joins a paragraph’s lines without a space between CJK characters', () => {
    expect(snippetPlain('命中率。\n第一次«命中»')).toBe('命中率。第一次«命中»');
    expect(snippetPlain('缓存设计\n\n**命中率**等于')).toBe('缓存设计 命中率等于');
    expect(snippetPlain('hit rate\nfirst «hit»')).toBe('hit rate first «hit»');
  });
});
