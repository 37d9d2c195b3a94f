import { describe, expect, it, vi } from 'vitest';
import type { ThreadEvent } from '../src/api/types';
import { SessionStore } from '../src/stores/session.svelte';
import { deferred, fakeClient, manualFrames, snapshot } from './helpers';

const S = 'sess-1';

function ev(seq: number, type: ThreadEvent['type'], payload: unknown): ThreadEvent {
  return { sessionId: S, seq, type, payload } as ThreadEvent;
}

/** A recorded turn: prompt, thought, streamed answer, an edit that asks
 * permission, usage and commands, a plan, the end. */
const RECORDED: ThreadEvent[] = [
  ev(1, 'turn', { state: 'running', turn: 1 }),
  ev(2, 'entry', { id: 'e1', kind: 'user_message', turn: 1, text: 'Fix the typo in notes/a.md' }),
  ev(3, 'entry', { id: 'e2', kind: 'thought', turn: 1, text: 'Let me', streaming: true }),
  ev(4, 'append', { entryId: 'e2', delta: ' look.' }),
  ev(5, 'entry', { id: 'e3', kind: 'assistant_message', turn: 1, text: 'I will', streaming: true }),
  ev(6, 'append', { entryId: 'e3', delta: ' fix' }),
  ev(7, 'append', { entryId: 'e3', delta: ' it.' }),
  ev(8, 'entry', {
    id: 'e4',
    kind: 'tool_call',
    turn: 1,
    toolCall: {
      id: 'e4',
      toolCallId: 'tc1',
      title: 'Edit notes/a.md',
      kind: 'edit',
      status: 'awaiting_permission',
      content: [{ type: 'diff', path: 'notes/a.md', oldText: 'teh\n', newText: 'the\n' }],
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    },
  }),
  ev(9, 'permission', {
    requestId: 'r1',
    toolCallId: 'tc1',
    title: 'Edit notes/a.md',
    kind: 'edit',
    options: [
      { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
    ],
    toolCall: { toolCallId: 'tc1' },
  }),
  ev(10, 'meta', {
    usage: { used: 1200, size: 200000, cost: { amount: 0.01, currency: 'USD' } },
    commands: [{ name: 'review', description: 'Review changes' }],
    currentModeId: 'code',
    title: 'Typo fix',
  }),
  ev(11, 'permission_resolved', { requestId: 'r1', optionId: 'allow' }),
  ev(12, 'entry', {
    id: 'e4',
    kind: 'tool_call',
    turn: 1,
    toolCall: { id: 'e4', toolCallId: 'tc1', title: 'Edit notes/a.md', kind: 'edit', status: 'completed', decision: 'allow_once' },
  }),
  ev(13, 'entry', { id: 'e5', kind: 'plan', turn: 1, plan: [{ content: 'Fix typo', status: 'completed' }] }),
  ev(14, 'notice', { level: 'info', message: 'Session title updated' }),
  ev(15, 'turn', { state: 'ended', turn: 1, stopReason: 'end_turn' }),
];

async function openStore(seq = 0, opts: Parameters<typeof snapshot>[3] = {}) {
  const frames = manualFrames();
  const fc = fakeClient({ 'sessions.open': () => snapshot(S, seq, [], opts) });
  const store = new SessionStore(fc.client, frames.schedule);
  await store.open(S);
  return { store, frames, fc };
}

describe('session store', () => {
  it('builds the expected state from a recorded sequence of events', async () => {
    const { store, frames } = await openStore();
    for (const e of RECORDED) expect(store.handleEvent(e)).toBe(true);
    frames.run();

    expect(store.seq).toBe(15);
    expect(store.order).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(store.cell('e1')!.v.text).toBe('Fix the typo in notes/a.md');
    expect(store.cell('e2')!.v.text).toBe('Let me look.');
    expect(store.cell('e3')!.v.text).toBe('I will fix it.');
    expect(store.cell('e4')!.v.toolCall?.status).toBe('completed');
    expect(store.cell('e4')!.v.toolCall?.decision).toBe('allow_once');
    expect(store.cell('e5')!.v.plan).toEqual([{ content: 'Fix typo', status: 'completed' }]);
    expect(store.pending).toEqual([]);
    expect(store.running).toBe(false);
    expect(store.turn).toBe(1);
    expect(store.stopReason).toBe('end_turn');
    expect(store.usage).toMatchObject({ used: 1200, size: 200000 });
    expect(store.commands.map((c) => c.name)).toEqual(['review']);
    expect(store.currentModeId).toBe('code');
    expect(store.title).toBe('Typo fix');
    expect(store.summary?.title).toBe('Typo fix');
    expect(store.notices.map((n) => n.message)).toEqual(['Session title updated']);
  });

  it('keeps a pending permission until it is resolved', async () => {
    const { store } = await openStore();
    for (const e of RECORDED.slice(0, 9)) store.handleEvent(e);
    expect(store.pending.map((p) => p.requestId)).toEqual(['r1']);
    expect(store.running).toBe(true);
    store.handleEvent(ev(10, 'permission', RECORDED[8].payload)); // same request again: no duplicate
    expect(store.pending).toHaveLength(1);
  });

  it('applies at once but renders at most once per frame', async () => {
    const { store, frames } = await openStore(0, { thread: { entries: [{ id: 'e1', kind: 'assistant_message', turn: 1, text: '', streaming: true }], usage: { used: 0, size: 0 }, turn: 1 } });
    const cell = store.cell('e1')!;
    for (let i = 1; i <= 500; i++) store.handleEvent(ev(i, 'append', { entryId: 'e1', delta: 'x' }));
    expect(store.entry('e1')!.text).toHaveLength(500); // the model is current
    expect(cell.v.text).toBe(''); // the view waits for the frame
    expect(frames.pending).toBe(1); // one frame asked for, not 500
    frames.run();
    expect(cell.v.text).toHaveLength(500);
    expect(store.cell('e1')).toBe(cell); // same cell: only this entry re-renders
  });

  it('a seq gap triggers exactly one refetch; events meanwhile wait for it', async () => {
    const frames = manualFrames();
    const second = deferred<ReturnType<typeof snapshot>>();
    const third = deferred<ReturnType<typeof snapshot>>();
    let opens = 0;
    const fc = fakeClient({
      'sessions.open': () => {
        opens++;
        return opens === 1 ? snapshot(S, 0) : opens === 2 ? second.promise : third.promise;
      },
    });
    const store = new SessionStore(fc.client, frames.schedule);
    await store.open(S);
    store.handleEvent(ev(1, 'entry', { id: 'e1', kind: 'user_message', turn: 1, text: 'hi' }));
    store.handleEvent(ev(2, 'entry', { id: 'e2', kind: 'assistant_message', turn: 1, text: 'a', streaming: true }));
    expect(opens).toBe(1);

    store.handleEvent(ev(5, 'append', { entryId: 'e2', delta: 'LOST?' })); // 3 and 4 never came
    store.handleEvent(ev(6, 'append', { entryId: 'e2', delta: 'b' }));
    store.handleEvent(ev(7, 'append', { entryId: 'e2', delta: 'c' }));
    store.handleEvent(ev(9, 'append', { entryId: 'e2', delta: 'd' })); // another gap while fetching
    expect(opens).toBe(2);
    expect(store.refetches).toBe(1);

    // The snapshot knows everything up to 6 (its text includes 3..6).
    second.resolve(
      snapshot(S, 6, [
        { id: 'e1', kind: 'user_message', turn: 1, text: 'hi' },
        { id: 'e2', kind: 'assistant_message', turn: 1, text: 'a…LOST?b', streaming: true },
      ]),
    );
    await vi.waitFor(() => expect(store.seq).toBe(7));
    frames.run();
    expect(store.cell('e2')!.v.text).toBe('a…LOST?bc'); // 7 applied once, 5 and 6 not twice
    // 9 follows 7 with a gap: one more refetch, not a storm.
    expect(opens).toBe(3);
    expect(store.refetches).toBe(2);
  });

  it('ignores duplicates and events already in the snapshot', async () => {
    const { store, frames } = await openStore(10, {
      thread: { entries: [{ id: 'e1', kind: 'assistant_message', turn: 1, text: 'abc' }], usage: { used: 0, size: 0 }, turn: 1 },
    });
    store.handleEvent(ev(9, 'append', { entryId: 'e1', delta: 'OLD' }));
    store.handleEvent(ev(10, 'append', { entryId: 'e1', delta: 'OLD' }));
    store.handleEvent(ev(11, 'append', { entryId: 'e1', delta: 'd' }));
    store.handleEvent(ev(11, 'append', { entryId: 'e1', delta: 'd' }));
    frames.run();
    expect(store.cell('e1')!.v.text).toBe('abcd');
  });

  it('an append to an unknown entry does not crash and keeps seq', async () => {
    const { store, frames } = await openStore();
    expect(() => store.handleEvent(ev(1, 'append', { entryId: 'nope', delta: 'x' }))).not.toThrow();
    expect(() => store.handleEvent(ev(2, 'append', null))).not.toThrow();
    expect(() => store.handleEvent(ev(3, 'bogus' as ThreadEvent['type'], {}))).not.toThrow();
    store.handleEvent(ev(4, 'entry', { id: 'e1', kind: 'assistant_message', turn: 1, text: 'ok' }));
    frames.run();
    expect(store.seq).toBe(4);
    expect(store.order).toEqual(['e1']);
  });

  it('ignores events of other sessions (returns false)', async () => {
    const { store } = await openStore();
    expect(store.handleEvent({ ...ev(1, 'turn', { state: 'running', turn: 1 }), sessionId: 'other' })).toBe(false);
    expect(store.running).toBe(false);
    expect(store.seq).toBe(0);
  });

  it('buffers events that arrive while the snapshot loads', async () => {
    const frames = manualFrames();
    const snap = deferred<ReturnType<typeof snapshot>>();
    const fc = fakeClient({ 'sessions.open': () => snap.promise });
    const store = new SessionStore(fc.client, frames.schedule);
    const opened = store.open(S);
    store.handleEvent(ev(3, 'append', { entryId: 'e1', delta: ' (in snapshot)' }));
    store.handleEvent(ev(4, 'append', { entryId: 'e1', delta: ' new' }));
    snap.resolve(snapshot(S, 3, [{ id: 'e1', kind: 'assistant_message', turn: 1, text: 'old (in snapshot)' }]));
    await opened;
    frames.run();
    expect(store.cell('e1')!.v.text).toBe('old (in snapshot) new');
    expect(fc.call).toHaveBeenCalledTimes(1);
  });

  it('turn errors and failed calls become notices', async () => {
    const { store, fc } = await openStore();
    store.handleEvent(ev(1, 'turn', { state: 'running', turn: 1 }));
    store.handleEvent(ev(2, 'turn', { state: 'ended', turn: 1, stopReason: 'error', error: { code: 'agent_failed', message: 'The agent exited.', details: 'stderr tail' } }));
    expect(store.notices.at(-1)).toMatchObject({ level: 'error', message: 'The agent exited.', details: 'stderr tail', code: 'agent_failed' });

    fc.handlers['sessions.prompt'] = () => {
      throw { code: 'needs_auth', message: 'Sign in first.' };
    };
    expect(await store.prompt('hello')).toBe(false);
    expect(store.notices.at(-1)).toMatchObject({ code: 'needs_auth', action: 'login' });
  });

  it('decide removes the request at once and calls permissions.decide', async () => {
    const { store, fc } = await openStore();
    fc.handlers['permissions.decide'] = () => ({});
    store.handleEvent(ev(1, 'permission', RECORDED[8].payload));
    await store.decide('r1', 'allow');
    expect(store.pending).toEqual([]);
    expect(fc.call).toHaveBeenLastCalledWith('permissions.decide', { sessionId: S, requestId: 'r1', optionId: 'allow' });
  });

  it('a new entry ends the streaming of the one before it; the end of a turn ends all', async () => {
    const { store, frames } = await openStore();
    store.handleEvent(ev(1, 'entry', { id: 'e1', kind: 'thought', turn: 1, text: 'hm', streaming: true }));
    store.handleEvent(ev(2, 'entry', { id: 'e2', kind: 'assistant_message', turn: 1, text: 'a', streaming: true }));
    frames.run();
    expect(store.cell('e1')!.v.streaming).toBe(false);
    expect(store.cell('e2')!.v.streaming).toBe(true);
    store.handleEvent(ev(3, 'entry', { id: 'e1', kind: 'thought', turn: 1, text: 'hm' })); // an update: no effect on e2
    frames.run();
    expect(store.cell('e2')!.v.streaming).toBe(true);
    store.handleEvent(ev(4, 'turn', { state: 'ended', turn: 1, stopReason: 'end_turn' }));
    frames.run();
    expect(store.cell('e2')!.v.streaming).toBe(false);
  });

  it('a turn that ends before sessions.prompt returns stays ended', async () => {
    const { store, fc } = await openStore();
    const answer = deferred<{ turn: number }>();
    fc.handlers['sessions.prompt'] = () => answer.promise;
    const sent = store.prompt('hi');
    expect(store.running).toBe(true); // at once
    store.handleEvent(ev(1, 'notice', { level: 'error', message: 'The agent needs a login.', action: 'login' }));
    store.handleEvent(ev(2, 'turn', { state: 'ended', turn: 1, stopReason: 'error' }));
    answer.resolve({ turn: 1 });
    expect(await sent).toBe(true);
    expect(store.running).toBe(false);
    expect(store.lastTurnFailed).toBe(true);
  });
});

describe('session store: the model, in both shapes agents offer it', () => {
  const legacy = [
    { modelId: 'fast', name: 'Fast' },
    { modelId: 'deep', name: 'Deep' },
  ];
  const option = {
    id: 'model',
    name: 'Model',
    category: 'model',
    type: 'select',
    currentValue: 'fast',
    options: [
      { value: 'fast', name: 'Fast' },
      { value: 'deep', name: 'Deep' },
    ],
  };
  const effort = { id: 'effort', name: 'Effort', category: 'thought_level', type: 'select', currentValue: 'low', options: [{ value: 'low', name: 'Low' }] };

  it('a "model" config option: sessions.setModel, the option shown switched at once', async () => {
    const { store, fc } = await openStore(0, {
      thread: { entries: [], usage: { used: 0, size: 0 }, turn: 0, models: legacy, currentModelId: 'fast', configOptions: [effort, option] },
    });
    const done = deferred<unknown>();
    fc.handlers['sessions.setModel'] = () => done.promise;
    const p = store.setModel('deep');
    expect(fc.call).toHaveBeenLastCalledWith('sessions.setModel', { id: S, modelId: 'deep' });
    expect(store.currentModelId).toBe('deep');
    expect(store.configOptions.map((o) => o.currentValue)).toEqual(['low', 'deep']);
    done.resolve({});
    await p;
    // Go's meta event (the option's new value and the models it derives) agrees.
    store.handleEvent(ev(1, 'meta', { configOptions: [effort, { ...option, currentValue: 'deep' }], models: legacy, currentModelId: 'deep' }));
    expect(store.currentModelId).toBe('deep');
    expect(store.configOptions[1].currentValue).toBe('deep');
  });

  it('legacy models: sessions.setModel; a refusal puts the model back', async () => {
    const { store, fc } = await openStore(0, {
      thread: { entries: [], usage: { used: 0, size: 0 }, turn: 0, models: legacy, currentModelId: 'fast', configOptions: [effort] },
    });
    fc.handlers['sessions.setModel'] = () => {
      throw { code: 'bad_request', message: 'the agent refused: unknown model', reason: 'agent_refused', params: { message: 'unknown model' } };
    };
    await store.setModel('bad');
    expect(fc.call).toHaveBeenLastCalledWith('sessions.setModel', { id: S, modelId: 'bad' });
    expect(store.currentModelId).toBe('fast');
    expect(store.configOptions).toEqual([effort]); // no model option to touch
    expect(store.notices.map((n) => n.level)).toEqual(['error']);
  });

  it('a refused config option change puts the option back too', async () => {
    const { store, fc } = await openStore(0, {
      thread: { entries: [], usage: { used: 0, size: 0 }, turn: 0, models: legacy, currentModelId: 'fast', configOptions: [option] },
    });
    fc.handlers['sessions.setModel'] = () => {
      throw { code: 'bad_request', message: 'refused' };
    };
    await store.setModel('bad');
    expect(store.currentModelId).toBe('fast');
    expect(store.configOptions[0].currentValue).toBe('fast');
  });
});
