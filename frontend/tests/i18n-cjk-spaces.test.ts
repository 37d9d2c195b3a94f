// No space around a Chinese value in a Chinese message (用测试助手新建会话);
// a Latin or numeric value keeps its spaces.
import { afterEach, describe, expect, it } from 'vitest';
import { i18n, m, tidyCJK } from '../src/lib/i18n.svelte';

describe('Chinese interpolations', () => {
  afterEach(() => i18n.choose('en'));
  it('drop the spaces where a Chinese value meets Chinese', () => {
    i18n.choose('zh-CN');
    expect(m.app_new_session_with({ agent: '测试助手' })).toBe('用测试助手新建会话');
    expect(m.app_new_session_with({ agent: 'Claude' })).toBe('用 Claude 新建会话');
    expect(m.chat_placeholder({ agent: '测试助手' })).toBe('给测试助手发消息（输入 / 使用命令）');
    expect(m.chat_forked_from({ title: '缓存实验', turn: 2 })).toBe('分叉自“缓存实验”的第 2 轮');
    i18n.choose('en');
    expect(m.app_new_session_with({ agent: '测试助手' })).toBe('New session with 测试助手');
  });
  it('keep spaces next to Latin text, punctuation and the edges', () => {
    expect(tidyCJK('无法打开 笔记.md：{error}', { name: '笔记.md' })).toBe('无法打开笔记.md：{error}');
    expect(tidyCJK('打开 a笔记 吧', { name: 'a笔记' })).toBe('打开 a笔记吧');
    expect(tidyCJK('x 测试 y', { a: '测试' })).toBe('x 测试 y');
    expect(tidyCJK('用 测试助手 新建', { a: '测试助手', n: 3 })).toBe('用测试助手新建');
  });
});
