import { describe, expect, it } from 'vitest';
import { extOf, nameSelection, planRename } from '../src/lib/rename';

describe('planRename', () => {
  it('keeps .md when the extension went with a select-all (the F2 → Ctrl+A case)', () => {
    expect(planRename('缓存.md', '缓存实验')).toEqual({ kind: 'rename', name: '缓存实验.md' });
    expect(planRename('Notes.markdown', 'Ideas')).toEqual({ kind: 'rename', name: 'Ideas.markdown' });
    expect(planRename('缓存.md', ' 缓存实验. ')).toEqual({ kind: 'rename', name: '缓存实验.md' });
  });
  it('takes a name typed with the same kind as it is', () => {
    expect(planRename('缓存.md', '缓存设计.md')).toEqual({ kind: 'rename', name: '缓存设计.md' });
    expect(planRename('a.md', 'B.MD')).toEqual({ kind: 'rename', name: 'B.MD' });
    expect(planRename('a.md', 'a.markdown')).toEqual({ kind: 'rename', name: 'a.markdown' });
  });
  it('treats a dot that is part of the name as the name', () => {
    expect(planRename('a.md', '版本 v1.2')).toEqual({ kind: 'rename', name: '版本 v1.2.md' });
    expect(planRename('a.md', 'Dr. Who')).toEqual({ kind: 'rename', name: 'Dr. Who.md' });
    expect(planRename('a.md', 'notes.v2')).toEqual({ kind: 'rename', name: 'notes.v2.md' });
    expect(planRename('a.md', '.hidden')).toEqual({ kind: 'rename', name: '.hidden.md' });
  });
  it('asks when another kind of file was clearly typed', () => {
    expect(planRename('缓存.md', '缓存.txt')).toEqual({ kind: 'ask', keep: '缓存.md', other: '缓存.txt', keepExt: '.md', otherExt: '.txt' });
    expect(planRename('图.png', '图.jpg')).toEqual({ kind: 'ask', keep: '图.png', other: '图.jpg', keepExt: '.png', otherExt: '.jpg' });
  });
  it('keeps an attachment’s extension too, and leaves folders and extensionless files as typed', () => {
    expect(planRename('attachments/x.png'.split('/')[1], '命中率')).toEqual({ kind: 'rename', name: '命中率.png' });
    expect(planRename('README', 'LICENSE')).toEqual({ kind: 'rename', name: 'LICENSE' });
    expect(planRename('设计', '设计.md', true)).toEqual({ kind: 'rename', name: '设计.md' });
  });
  it('does nothing for an empty or unchanged name', () => {
    expect(planRename('a.md', '  ')).toEqual({ kind: 'none' });
    expect(planRename('a.md', 'a.md')).toEqual({ kind: 'none' });
    expect(planRename('a.md', 'a')).toEqual({ kind: 'none' });
    expect(planRename('a.md', '...')).toEqual({ kind: 'none' });
  });
});

describe('nameSelection', () => {
  it('selects the name without its extension', () => {
    expect(nameSelection('缓存实验.md')).toEqual([0, 4]);
    expect(nameSelection('a.b.png')).toEqual([0, 3]);
    expect(nameSelection('.env')).toEqual([0, 4]);
    expect(nameSelection('v1.2', true)).toEqual([0, 4]);
  });
  it('reads extensions', () => {
    expect(extOf('x.tar.gz')).toBe('.gz');
    expect(extOf('noext')).toBe('');
  });
});
