import { describe, expect, it } from 'vitest';
import type { SharedEntry } from '../src/api/shared';
import { SharedView, sharedTurns, turnItems } from '../src/stores/shared.svelte';

function entry(seq: number, kind: string, actor: string, runId: string | undefined, text = '', extra: Partial<SharedEntry> = {}): SharedEntry {
  return { seq, epoch: 1, kind, actor, runId, timeMs: seq, Entry: { kind, text }, ...extra };
}

describe('a shared log as turns', () => {
  const log = [
    entry(1, 'prompt', 'ada', 'r1', 'look'),
    entry(2, 'answer', 'ada', 'r1', 'I '),
    entry(3, 'answer', 'ada', 'r1', 'found it'),
    entry(4, 'tool', 'ada', 'r1', '', { Entry: { kind: 'tool', tool: { toolCallId: 't1', title: 'Read', status: 'pending' } } }),
    entry(5, 'tool', 'ada', 'r1', '', { Entry: { kind: 'tool', tool: { toolCallId: 't1', title: 'Read', status: 'completed' } } }),
    entry(6, 'status', 'ada', 'r1', 'ended'),
    entry(7, 'comment', 'cai', undefined, 'nice'),
    entry(8, 'prompt', 'bob', 'r2', 'and?'),
    entry(9, 'answer', 'bob', 'r2', '', { unreadable: 'no_key' }),
  ];

  it('groups entries by run with the prompt and its actor; comments and unreadable entries stand alone', () => {
    const turns = sharedTurns(log);
    expect(turns.map((t) => [t.actor, t.prompt?.Entry.text ?? null, t.entries.length])).toEqual([
      ['ada', 'look', 5],
      ['cai', null, 1],
      ['bob', 'and?', 0],
      ['bob', null, 1],
    ]);
  });

  it('joins answer appends and keeps each tool call at its latest state', () => {
    const items = turnItems(sharedTurns(log)[0].entries);
    expect(items.map((e) => e.kind)).toEqual(['answer', 'tool', 'status']);
    expect(items[0].Entry.text).toBe('I found it');
    expect(items[1].Entry.tool?.status).toBe('completed');
  });

  it('does not join an unreadable entry into an answer', () => {
    const items = turnItems([entry(1, 'answer', 'a', 'r', 'x'), entry(2, 'answer', 'a', 'r', '', { unreadable: 'tampered' })]);
    expect(items).toHaveLength(2);
    expect(items[1].unreadable).toBe('tampered');
  });
});

describe('a shared session live', () => {
  it('an entry opened once its key came takes the place of the one that could not be opened; an opened one is never replaced', () => {
    const v = new SharedView();
    v.apply({ type: 'entry', entry: entry(1, 'prompt', 'ada', 'r', '', { unreadable: 'no_key' }) });
    v.apply({ type: 'entry', entry: entry(2, 'answer', 'ada', 'r', '原来的') });
    v.apply({ type: 'entry', entry: entry(1, 'prompt', 'ada', 'r', '打开了') });
    v.apply({ type: 'entry', entry: entry(2, 'answer', 'mallory', 'r', '换掉') });
    v.apply({ type: 'entry', entry: entry(1, 'prompt', 'ada', 'r', '', { unreadable: 'no_key' }) });
    expect(v.entries.map((e) => [e.seq, e.actor, e.Entry.text, e.unreadable ?? ''])).toEqual([
      [1, 'ada', '打开了', ''],
      [2, 'ada', '原来的', ''],
    ]);
  });

  it('adds new entries once, in order; tracks lease, queue, presence, waiting and revoke', () => {
    const v = new SharedView();
    v.state = { shared: true, account: 'ada', role: 'editor', members: [{ account: 'bob', role: 'owner', keysChanged: true }], entries: [] };
    v.apply({ type: 'entry', entry: entry(1, 'prompt', 'bob', 'r', 'hi') });
    v.apply({ type: 'entry', entry: entry(1, 'prompt', 'bob', 'r', 'hi') });
    v.apply({ type: 'entry', entry: entry(2, 'answer', 'bob', 'r', 'yo') });
    expect(v.entries.map((e) => e.seq)).toEqual([1, 2]);
    v.apply({
      type: 'lease',
      lease: { runId: 'r', account: 'bob', grantedAt: '', expiresAt: '' },
      queue: [{ runId: 'q', account: 'ada', position: 1, requestedAt: '' }],
    });
    expect(v.lease?.account).toBe('bob');
    expect(v.queue).toHaveLength(1);
    v.apply({ type: 'queued', position: 1 });
    expect(v.waiting).toBe(1);
    v.apply({ type: 'granted' });
    expect(v.waiting).toBe(0);
    v.apply({ type: 'presence', viewers: [{ account: 'bob' }, { account: 'bob', device: 'd2' }, { account: 'ada' }] });
    expect(v.viewers).toEqual(['bob', 'ada']);
    expect(v.keysChanged).toEqual(['bob']);
    expect(v.canRun).toBe(true);
    v.apply({ type: 'revoked' });
    expect(v.revoked).toBe(true);
    expect([v.lease, v.queue, v.viewers]).toEqual([null, [], []]);
    expect(v.canRun).toBe(false);
    expect(v.canComment).toBe(false);
  });

  it('lets a commenter comment and a viewer neither run nor comment', () => {
    const v = new SharedView();
    v.state = { shared: true, role: 'commenter', members: [], entries: [] };
    expect([v.canRun, v.canComment]).toEqual([false, true]);
    v.state = { shared: true, role: 'viewer', members: [], entries: [] };
    expect([v.canRun, v.canComment]).toEqual([false, false]);
  });
});
