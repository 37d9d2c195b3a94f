// The shared sessions' components as a person uses them: the Share
// dialog's Members (the owner changes roles, removes, adds; others read),
// and what stands instead of the prompt box (a commenter's comment box, a
// viewer's notice, a revoked member's "access ended").
import { flushSync, mount, tick, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SharedState } from '../src/api/shared';
import SharedComposer from '../src/components/SharedComposer.svelte';
import SharedMembers from '../src/components/SharedMembers.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { Features, setFeatures } from '../src/stores/features.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

let target: HTMLElement;
let comps: Record<string, unknown>[] = [];
let app: AppState | null = null;

function setup(state: SharedState, extra: Record<string, (a: Record<string, unknown>) => unknown> = {}) {
  const f = fakeClient({
    'sessions.list': () => [],
    'sessions.open': (a) => snapshot(String(a.id), 0),
    'agents.list': () => [],
    'workspace.get': () => null,
    'sync.status': () => ({ enabled: true, configured: true, allowTitles: false, pending: 0, parked: 0 }),
    'shared.state': () => state,
    ...extra,
  });
  app = new AppState(f.client, { schedule: manualFrames().schedule });
  app.start();
  setApp(app);
  const feats = new Features(app, { pollMs: 60_000 });
  setFeatures(app, feats);
  return { ...f, feats };
}

async function settle() {
  for (let i = 0; i < 5; i++) await tick();
  flushSync();
}

function button(root: ParentNode, text: string): HTMLButtonElement {
  const b = [...root.querySelectorAll<HTMLButtonElement>('button')].find((x) => x.textContent?.trim() === text);
  if (!b) throw new Error(`no button ${text}`);
  return b;
}

beforeEach(() => {
  localStorage.clear();
  target = document.createElement('div');
  document.body.appendChild(target);
});

afterEach(() => {
  for (const c of comps) unmount(c);
  comps = [];
  app?.stop();
  app = null;
  target.remove();
});

const members = (role: 'owner' | 'editor'): SharedState => ({
  shared: true,
  account: role === 'owner' ? 'ada' : 'bob',
  owner: 'ada',
  role,
  members: [
    { account: 'ada', role: 'owner' },
    { account: 'bob', role: 'editor' },
  ],
  entries: [],
});

describe('SharedMembers', () => {
  it('lets the owner change a role, remove a member and add one by account name', async () => {
    const f = setup(members('owner'), {
      'shared.setRole': (a) => ({ account: 'ada', owner: 'ada', role: 'owner', members: [{ account: 'ada', role: 'owner' }, { account: String(a.account), role: a.role }] }),
      'shared.remove': () => ({ account: 'ada', owner: 'ada', role: 'owner', members: [{ account: 'ada', role: 'owner' }] }),
      'shared.add': (a) => ({ account: 'ada', owner: 'ada', role: 'owner', members: [{ account: 'ada', role: 'owner' }, { account: String(a.account), role: a.role }] }),
    });
    comps.push(mount(SharedMembers, { target, props: { id: 's1' } }));
    await settle();
    const select = target.querySelector<HTMLSelectElement>('select[aria-label="Role of bob"]')!;
    expect(select.value).toBe('editor');
    select.value = 'viewer';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await settle();
    expect(f.call).toHaveBeenCalledWith('shared.setRole', { id: 's1', account: 'bob', role: 'viewer' });

    button(target, 'Remove').click();
    await settle();
    expect(f.call).toHaveBeenCalledWith('shared.remove', { id: 's1', account: 'bob' });
    expect(target.querySelectorAll('[data-testid="shared-member"]')).toHaveLength(1);

    const acct = target.querySelector<HTMLInputElement>('input[aria-label="Account name"]')!;
    acct.value = ' cai ';
    acct.dispatchEvent(new Event('input', { bubbles: true }));
    const role = target.querySelector<HTMLSelectElement>('select[aria-label="Role"]')!;
    role.value = 'commenter';
    role.dispatchEvent(new Event('change', { bubbles: true }));
    flushSync();
    button(target, 'Add').click();
    await settle();
    expect(f.call).toHaveBeenCalledWith('shared.add', { id: 's1', account: 'cai', role: 'commenter' });
    expect(target.textContent).toContain('cai');
  });

  it('shows the roles read-only to a member who is not the owner', async () => {
    setup(members('editor'));
    comps.push(mount(SharedMembers, { target, props: { id: 's1' } }));
    await settle();
    expect(target.querySelectorAll('select')).toHaveLength(0);
    expect(target.querySelector('form')).toBeNull();
    expect([...target.querySelectorAll('[data-testid="shared-member-role"]')].map((e) => e.textContent)).toEqual(['owner', 'editor']);
  });

  it('offers sharing a private session and words why it failed (by its reason, not the Go message)', async () => {
    setup({ shared: false, members: [], entries: [] }, {
      'shared.share': () => {
        throw { code: 'bad_request', reason: 'sync_disabled', message: 'sync is off' };
      },
    });
    comps.push(mount(SharedMembers, { target, props: { id: 's1' } }));
    await settle();
    expect(target.textContent).toContain('Only you can see this session.');
    button(target, 'Share with members').click();
    await settle();
    expect(target.querySelector('[data-testid="shared-members-error"]')?.textContent).not.toContain('sync is off');
  });
});

describe('SharedComposer', () => {
  async function composerFor(st: SharedState, extra = {}) {
    const f = setup(st, extra);
    const view = await f.feats.shared.open('s1');
    comps.push(mount(SharedComposer, { target, props: { id: 's1', view: view! } }));
    await settle();
    return { f, view: view! };
  }

  it('gives a commenter a comment box that sends a comment', async () => {
    const { f } = await composerFor({ ...members('editor'), role: 'commenter' }, { 'shared.comment': () => ({ seq: 3 }) });
    const box = target.querySelector<HTMLTextAreaElement>('[data-testid="shared-comment-box"] textarea')!;
    box.value = 'nice find';
    box.dispatchEvent(new Event('input', { bubbles: true }));
    flushSync();
    button(target, 'Send comment').click();
    await settle();
    expect(f.call).toHaveBeenCalledWith('shared.comment', { id: 's1', text: 'nice find' });
    expect(box.value).toBe('');
  });

  it('tells a viewer the session is read-only, and a revoked member that access ended', async () => {
    const { f, view } = await composerFor({ ...members('editor'), role: 'viewer' });
    expect(target.querySelector('[data-testid="shared-readonly"]')).not.toBeNull();
    expect(target.querySelector('textarea')).toBeNull();
    f.emit('shared:event', { sessionId: 's1', type: 'revoked' });
    flushSync();
    expect(view.revoked).toBe(true);
    expect(target.querySelector('[data-testid="shared-revoked"]')?.textContent).toContain('access to this session ended');
  });
});

describe('SharedStore', () => {
  it('finds the sessions shared with this account without following them; a tab opened follows', async () => {
    const f = setup(members('editor'), { 'shared.sessions': () => [{ session: { id: 's9' }, owner: 'ada', role: 'editor', head: 3 }] });
    await f.feats.shared.discover();
    expect(f.call).toHaveBeenCalledWith('shared.state', { id: 's9', quiet: true });
    expect(f.feats.shared.view('s9')).toBeUndefined();
    await f.feats.shared.open('s9');
    expect(f.call).toHaveBeenCalledWith('shared.state', { id: 's9' });
    expect(f.feats.shared.view('s9')?.role).toBe('editor');
  });
});
