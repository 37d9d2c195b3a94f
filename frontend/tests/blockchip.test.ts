// A mentioned note with a Chinese name shows its name, not its
// percent-encoded URI.
import { mount, unmount } from 'svelte';
import { describe, expect, it } from 'vitest';
import BlockChip from '../src/components/BlockChip.svelte';

describe('BlockChip', () => {
  it('decodes a file URI for people', () => {
    const target = document.createElement('div');
    const uri = 'file:///home/u/notes/%E7%AC%94%E8%AE%B0/%E4%BC%9A%E8%AE%AE%E8%AE%B0%E5%BD%95.md';
    const c = mount(BlockChip, { target, props: { block: { type: 'resource', raw: { type: 'resource', resource: { uri, text: 'x' } } } as never } });
    const chip = target.querySelector('.chip')!;
    expect(chip.textContent).toBe('会议记录.md');
    expect(chip.getAttribute('title')).toBe('file:///home/u/notes/笔记/会议记录.md');
    unmount(c);
    const bad = mount(BlockChip, { target, props: { block: { type: 'resource_link', raw: { type: 'resource_link', uri: 'file:///a/%E0%A4%A.md' } } as never } });
    expect(target.querySelector('.chip')!.textContent).toBe('file:///a/%E0%A4%A.md');
    unmount(bad);
  });
});
