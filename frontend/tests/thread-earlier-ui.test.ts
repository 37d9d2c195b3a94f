// Issue 24 in the thread: while a long session's earlier entries come, a
// line at its top says so (in the interface language); when loading them
// fails it says that, and Retry loads them.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Entry } from '../src/api/types';
import ThreadView from '../src/components/ThreadView.svelte';
import { i18n } from '../src/lib/i18n.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { OPEN_TAIL } from '../src/stores/earlier';
import { deferred, fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

const TOTAL = OPEN_TAIL + 50;
const all: Entry[] = Array.from({ length: TOTAL }, (_, i) => ({ id: `e${i + 1}`, kind: 'thought', turn: 1, text: `t${i + 1}` }) as Entry);

function setup(slice: () => Promise<unknown>) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': (a) => {
      if (a.before) return slice();
      return { ...snapshot('s1', 0, all.slice(-OPEN_TAIL)), earlier: TOTAL - OPEN_TAIL };
    },
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: [], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [] }),
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule, workspace: { filterDelayMs: 0 } });
  app.start();
  setApp(app);
  return { ...f, app };
}

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  if (comp) unmount(comp);
  comp = null;
  app?.stop();
  app = null;
  setApp(null);
  i18n.choose('system');
  target.remove();
});

const line = () => target.querySelector('.earlier');

describe('ThreadView: the earlier entries of a long session', () => {
  it('says they are loading, then shows nothing more once they are in', async () => {
    const d = deferred<unknown>();
    const { app } = setup(() => d.promise);
    await app.openSession('s1');
    comp = mount(ThreadView, { target });
    flushSync();
    expect(line()?.textContent).toContain('Loading earlier messages…');
    expect(target.querySelector('[aria-busy="true"]')).not.toBeNull();
    i18n.choose('zh-CN');
    flushSync();
    expect(line()?.textContent).toContain('正在加载更早的消息…');

    d.resolve(snapshot('s1', 0, all.slice(0, TOTAL - OPEN_TAIL)));
    await app.session.whenComplete();
    flushSync();
    expect(line()).toBeNull();
    expect(target.querySelector('[aria-busy="true"]')).toBeNull();
    expect(app.session.order).toHaveLength(TOTAL);
  });

  it('a failed load says so, and Retry loads them', async () => {
    let fail = true;
    const { app, call } = setup(async () => {
      if (fail) throw { code: 'internal', message: 'disk on fire' };
      return snapshot('s1', 0, all.slice(0, TOTAL - OPEN_TAIL));
    });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await app.openSession('s1');
    comp = mount(ThreadView, { target });
    await vi.waitFor(() => {
      flushSync();
      expect(line()?.textContent).toContain('Earlier messages could not be loaded.');
    });
    fail = false;
    (line()?.querySelector('button') as HTMLButtonElement).click();
    await app.session.whenComplete();
    flushSync();
    expect(line()).toBeNull();
    expect(app.session.order).toHaveLength(TOTAL);
    expect(call.mock.calls.filter((c) => c[0] === 'sessions.open')).toHaveLength(3);
  });
});
