import { describe, expect, it } from 'vitest';
import { SessionsStore } from '../src/stores/sessions.svelte';
import { ToastStore } from '../src/stores/toasts.svelte';
import { fakeClient, summary } from './helpers';

describe('SessionsStore.applyChange', () => {
  async function loaded(list = [summary('b', { updatedMs: 20 }), summary('a', { updatedMs: 10 })]) {
    const f = fakeClient({ 'sessions.list': () => list });
    const s = new SessionsStore(f.client, new ToastStore());
    await s.refresh();
    f.call.mockClear();
    return { s, f };
  }

  it('patches, adds and removes without fetching the list', async () => {
    const { s, f } = await loaded();
    s.applyChange({ changed: [summary('a', { updatedMs: 30, title: 'Now first', status: 'running' })] });
    expect(s.items.map((x) => [x.id, x.title])).toEqual([
      ['a', 'Now first'],
      ['b', summary('b').title],
    ]);
    s.applyChange({ changed: [summary('c', { updatedMs: 40 })] });
    expect(s.items.map((x) => x.id)).toEqual(['c', 'a', 'b']);
    s.applyChange({ removed: ['a'] });
    expect(s.items.map((x) => x.id)).toEqual(['c', 'b']);
    expect(f.call).not.toHaveBeenCalled();
  });

  it('fetches the list for an empty payload', async () => {
    const { s, f } = await loaded();
    s.applyChange({});
    await Promise.resolve();
    expect(f.call).toHaveBeenCalledWith('sessions.list', expect.anything());
  });

  it('keeps a session deleted here hidden when a late change names it', async () => {
    const { s, f } = await loaded();
    f.handlers['sessions.delete'] = () => ({});
    await s.remove('a');
    s.applyChange({ changed: [summary('a', { updatedMs: 50 })] });
    expect(s.items.map((x) => x.id)).toEqual(['b']);
  });
});
