// The pure helpers of the notes side: the tree model (Go's order, patches,
// rows), unified diffs as Go writes them, and @-mentions.
import { describe, expect, it } from 'vitest';
import type { TreeNode } from '../src/api/types';
import { insertMention, mentionQuery, mentionsIn, mentionToken, promptExtras } from '../src/lib/mentions';
import {
  ancestors,
  compareNodes,
  filterRows,
  findNode,
  flatten,
  insertNode,
  isHiddenName,
  isMarkdown,
  moveNode,
  naturalCompare,
  removeNode,
  sortTree,
} from '../src/lib/tree';
import { parseUnifiedDiff, sectionPath } from '../src/lib/unidiff';
import { i18n } from '../src/lib/i18n.svelte';

function tree(): TreeNode {
  return {
    name: 'ws',
    path: '',
    dir: true,
    children: [
      {
        name: 'notes',
        path: 'notes',
        dir: true,
        children: [
          { name: 'Note 2.md', path: 'notes/Note 2.md' },
          { name: 'Note 10.md', path: 'notes/Note 10.md' },
        ],
      },
      { name: 'a.md', path: 'a.md' },
    ],
  };
}

const names = (n: TreeNode | undefined) => (n?.children ?? []).map((c) => c.name);

describe('tree order', () => {
  it('is Go’s natural, case-insensitive order with folders first', () => {
    const list = ['b.md', 'Note 10.md', 'note 2.md', 'A.md', 'a2.md', 'a10.md', 'zeta'].map((name) => ({ name, path: name, dir: name === 'zeta' }));
    expect(list.sort(compareNodes).map((n) => n.name)).toEqual(['zeta', 'A.md', 'a2.md', 'a10.md', 'b.md', 'note 2.md', 'Note 10.md']);
    expect(naturalCompare('x007', 'x7')).toBe(0);
    expect(naturalCompare('x9', 'x10')).toBe(-1);
  });

  it('sortTree sorts every folder that is out of order, at any depth, and leaves the others as they are', () => {
    const leaf = (dir: string, ns: string[]): TreeNode[] => ns.map((name) => ({ name, path: `${dir}/${name}` }));
    const sorted = leaf('a/b/c', ['n1.md', 'n2.md', 'n10.md']);
    const root: TreeNode = {
      name: '',
      path: '',
      dir: true,
      children: [
        { name: 'z.md', path: 'z.md' },
        {
          name: 'a',
          path: 'a',
          dir: true,
          children: [
            { name: 'b', path: 'a/b', dir: true, children: [{ name: 'c', path: 'a/b/c', dir: true, children: sorted }, ...leaf('a/b', ['y10.md', 'Y9.md', 'x.md'])] },
          ],
        },
        { name: 'B', path: 'B', dir: true, children: [] },
      ],
    };
    sortTree(root);
    expect(names(root)).toEqual(['a', 'B', 'z.md']);
    expect(names(findNode(root, 'a/b'))).toEqual(['c', 'x.md', 'Y9.md', 'y10.md']);
    expect(findNode(root, 'a/b/c')?.children).toBe(sorted);
    expect(names(findNode(root, 'a/b/c'))).toEqual(['n1.md', 'n2.md', 'n10.md']);
  });

  it('knows Markdown files and names never listed', () => {
    expect(['a.md', 'b.MARKDOWN', 'c.mdx', 'd.txt', '.md'].map(isMarkdown)).toEqual([true, true, true, false, false]);
    expect(['.git', 'x~', '#x#', 'a.mnote-tmp-1', '4913', 'ok.md'].map(isHiddenName)).toEqual([true, true, true, true, true, false]);
    expect(ancestors('a/b/c.md')).toEqual(['a', 'a/b']);
  });
});

describe('tree patches', () => {
  it('inserts in order, making missing folders, and twice is once', () => {
    const t = tree();
    expect(insertNode(t, { name: 'Note 3.md', path: 'notes/Note 3.md' })).toBe(true);
    expect(names(findNode(t, 'notes'))).toEqual(['Note 2.md', 'Note 3.md', 'Note 10.md']);
    expect(insertNode(t, { name: 'Note 3.md', path: 'notes/Note 3.md' })).toBe(false);
    expect(insertNode(t, { name: 'deep.md', path: 'x/y/deep.md' })).toBe(true);
    expect(names(t)).toEqual(['notes', 'x', 'a.md']);
    expect(findNode(t, 'x/y')?.dir).toBe(true);
    expect(findNode(t, 'x/y/deep.md')?.path).toBe('x/y/deep.md');
  });

  it('removes a folder with what it holds', () => {
    const t = tree();
    expect(removeNode(t, 'notes')?.children).toHaveLength(2);
    expect(findNode(t, 'notes/Note 2.md')).toBeUndefined();
    expect(removeNode(t, 'notes')).toBeUndefined();
  });

  it('moves a folder and rewrites the paths inside it', () => {
    const t = tree();
    insertNode(t, { name: 'archive', path: 'archive', dir: true, children: [] });
    expect(moveNode(t, 'notes', 'archive/old notes')).toBe(true);
    expect(findNode(t, 'archive/old notes/Note 10.md')?.path).toBe('archive/old notes/Note 10.md');
    expect(findNode(t, 'notes')).toBeUndefined();
    expect(names(t)).toEqual(['archive', 'a.md']);
  });
});

describe('tree rows', () => {
  it('lists only open folders’ children, depth-first', () => {
    const t = tree();
    expect(flatten(t, new Set()).map((r) => r.node.path)).toEqual(['notes', 'a.md']);
    const rows = flatten(t, new Set(['notes']));
    expect(rows.map((r) => [r.node.path, r.depth, r.open])).toEqual([
      ['notes', 0, true],
      ['notes/Note 2.md', 1, false],
      ['notes/Note 10.md', 1, false],
      ['a.md', 0, false],
    ]);
  });

  it('filters by name, showing the folders leading to a match open', () => {
    const t = tree();
    const rows = filterRows(t, 'note 1');
    expect(rows.map((r) => r.node.path)).toEqual(['notes', 'notes/Note 10.md']);
    expect(rows[0].open).toBe(true);
    expect(rows[1].match).toEqual([0, 6]);
    // A matching folder shows closed when nothing inside matches.
    expect(filterRows(t, 'notes').map((r) => [r.node.path, r.open])).toEqual([['notes', false]]);
    expect(filterRows(t, 'zzz')).toEqual([]);
  });

  it('flattens and filters 10,000 files in 1,000 folders', () => {
    const root: TreeNode = { name: '', path: '', dir: true, children: [] };
    const open = new Set<string>();
    for (let d = 0; d < 1000; d++) {
      const dir = `d${d}`;
      open.add(dir);
      for (let f = 0; f < 10; f++) insertNode(root, { name: `n${f}.md`, path: `${dir}/n${f}.md` });
    }
    expect(flatten(root, open)).toHaveLength(11_000);
    expect(filterRows(root, 'n9')).toHaveLength(2000);
  });
});

describe('unified diffs', () => {
  it('parses Go’s diffs: files, hunks, line numbers, counts', () => {
    const text =
      '--- a/notes/x.md\n+++ b/notes/x.md\n@@ -1,3 +1,3 @@\n # X\n-old\n+new\n tail\n' +
      '--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n';
    const s = parseUnifiedDiff(text);
    expect(s).toHaveLength(2);
    expect(sectionPath(s[0])).toBe('notes/x.md');
    expect([s[0].added, s[0].removed]).toEqual([1, 1]);
    expect(s[0].rows.map((r) => [r.kind, r.oldNo, r.newNo, r.text])).toEqual([
      ['gap', undefined, undefined, 'Line 1'],
      ['ctx', 1, 1, '# X'],
      ['del', 2, undefined, 'old'],
      ['add', undefined, 2, 'new'],
      ['ctx', 3, 3, 'tail'],
    ]);
    expect(s[1].from).toBe('/dev/null');
    expect(sectionPath(s[1])).toBe('new.md');
    expect(s[1].rows.at(-1)).toEqual({ kind: 'gap', text: 'No newline at end of file' });
    // Diff's own note is worded in the interface's language.
    try {
      i18n.choose('zh-CN');
      const zh = parseUnifiedDiff(text);
      expect(zh[1].rows.at(-1)).toEqual({ kind: 'gap', text: '文件末尾没有换行符' });
      expect(zh[0].rows[0]).toEqual({ kind: 'gap', text: '第 1 行' });
    } finally {
      i18n.choose('system');
    }
  });

  it('names conflict diffs by their path (turn/, now/, disk/, buffer/ prefixes)', () => {
    expect(sectionPath(parseUnifiedDiff('--- turn/a.md\n+++ now/a.md\n@@ -1 +1 @@\n-x\n+y\n')[0])).toBe('a.md');
    expect(sectionPath(parseUnifiedDiff('--- disk/b/c.md\n+++ buffer/b/c.md\n')[0])).toBe('b/c.md');
    expect(parseUnifiedDiff('')).toEqual([]);
  });
});

describe('@-mentions', () => {
  it('finds the query being typed only when "@" starts a word', () => {
    expect(mentionQuery('look at @gar', 12)).toEqual({ start: 8, query: 'gar' });
    expect(mentionQuery('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionQuery('mail me@host', 12)).toBeNull();
    expect(mentionQuery('see @a b', 8)).toBeNull(); // the caret left the word
    expect(mentionQuery('see (@x', 7)).toEqual({ start: 5, query: 'x' });
  });

  it('puts the picked path in place of the query, the caret after it', () => {
    const text = 'fix @gar please';
    const r = insertMention(text, { start: 4, query: 'gar' }, 8, 'notes/garden.md');
    expect(r.text).toBe('fix @notes/garden.md please');
    expect(r.caret).toBe('fix @notes/garden.md '.length);
    const q = insertMention('x @no', { start: 2, query: 'no' }, 5, 'my notes/a b.md');
    expect(q.text).toBe('x @"my notes/a b.md" ');
    expect(mentionToken('a"b c.md')).toBe('@"ab c.md"');
  });

  it('sends only the picked paths the text still mentions', () => {
    const picked = ['notes/a.md', 'b.md', 'my notes/c d.md', 'notes/a.md'];
    expect(mentionsIn('see @notes/a.md, and @"my notes/c d.md".', picked)).toEqual(['notes/a.md', 'my notes/c d.md']);
    expect(mentionsIn('see @notes/a.mdx', picked)).toEqual([]);
    expect(mentionsIn('nothing', picked)).toEqual([]);
  });

  it('builds the prompt’s extra fields, leaving out what is empty', () => {
    expect(promptExtras(null, [])).toEqual({});
    expect(promptExtras({ path: 'a.md' }, ['b.md'])).toEqual({ context: { path: 'a.md' }, mentions: ['b.md'] });
    expect(promptExtras({ path: 'a.md', selection: { text: 'x', fromLine: 2, toLine: 3 } }, [])).toEqual({
      context: { path: 'a.md', selection: { text: 'x', fromLine: 2, toLine: 3 } },
    });
    expect(promptExtras({ path: 'a.md', selection: { text: '', fromLine: 1, toLine: 1 } }, [])).toEqual({ context: { path: 'a.md' } });
  });
});
