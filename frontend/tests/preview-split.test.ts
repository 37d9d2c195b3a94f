// The editor pane's Split view: the editor and the preview side by side,
// the preview following the typing, task boxes ticking the Markdown (an
// undoable edit of the editor), the view remembered and cycled.
import { flushSync, mount, unmount } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { undo } from '@codemirror/commands';
import { EditorView } from '@codemirror/view';
import EditorPane from '../src/components/EditorPane.svelte';
import { AppState, setApp } from '../src/stores/app.svelte';
import { fakeClient, manualFrames, snapshot } from './helpers';

const NOTE = '# 待办\n\n- [ ] 买牛奶\n- [x] done\n  - [ ] nested\n\n> 1. [ ] quoted\n';

let target: HTMLElement;
let comp: Record<string, unknown> | null = null;
let app: AppState | null = null;

function setup(content = NOTE) {
  const f = fakeClient({
    'sessions.list': () => [],
    'agents.list': () => [],
    'sessions.open': () => snapshot('s1', 0),
    'workspace.get': () => ({ dir: '/w', name: 'w', recent: ['/w'], canPick: false }),
    'workspace.tree': () => ({ name: 'w', path: '', dir: true, children: [{ name: 'todo.md', path: 'todo.md' }] }),
    'files.open': (a) => ({ path: a.path, content, dirty: false, version: 1 }),
    'files.update': (a) => ({ path: a.path, content: a.content, dirty: true, version: 2 }),
    'files.save': (a) => ({ path: a.path, content: a.content, dirty: false, version: 3 }),
    'notes.resolve': () => null,
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
  target.remove();
});

const q = <T extends Element = HTMLElement>(s: string) => target.querySelector<T>(s);
const modeBtn = (mode: string) => q<HTMLButtonElement>(`[data-testid="view-modes"] [data-mode="${mode}"]`)!;
const preview = () => q('[data-testid="preview"]');
const boxes = () => [...target.querySelectorAll<HTMLInputElement>('[data-testid="preview"] input.md-task')];

async function editorView(): Promise<EditorView> {
  await vi.waitFor(() => expect(q('.cm-editor')).not.toBeNull(), { timeout: 5000 });
  return EditorView.findFromDOM(q('.cm-editor')!)!;
}

describe('the Split view', () => {
  it('shows editor and preview side by side, follows typing, and a task box ticks its line (undoable)', async () => {
    const { app } = setup();
    await app.openFile('todo.md');
    comp = mount(EditorPane, { target });
    flushSync();
    const view = await editorView();
    expect(preview()).toBeNull();
    expect(modeBtn('live').getAttribute('aria-pressed')).toBe('true'); // live preview: the default

    modeBtn('split').click();
    flushSync();
    expect(q('.body')?.getAttribute('data-view')).toBe('split');
    expect(modeBtn('split').getAttribute('aria-pressed')).toBe('true');
    expect(q('[data-testid="editor"]')?.classList.contains('hidden')).toBe(false);
    expect(preview()?.querySelector('h1')?.textContent).toBe('待办');
    // Blocks carry their source lines.
    expect([...preview()!.querySelectorAll('.md-b')].map((b) => b.getAttribute('data-line'))).toEqual(['1', '3', '7']);
    expect(boxes().map((b) => [b.disabled, b.checked])).toEqual([
      [false, false],
      [false, true],
      [false, false],
      [false, false],
    ]);

    // Typing in the editor shows in the preview after a short pause.
    view.dispatch({ changes: { from: view.state.doc.length, insert: '\nA **new** line\n' }, userEvent: 'input.type' });
    await vi.waitFor(() => expect(preview()?.querySelector('strong')?.textContent).toBe('new'), { timeout: 5000 });

    // The nested box (line 5): only that character changes; the tab is unsaved.
    boxes()[2].click();
    flushSync();
    expect(view.state.doc.toString()).toBe('# 待办\n\n- [ ] 买牛奶\n- [x] done\n  - [x] nested\n\n> 1. [ ] quoted\n\nA **new** line\n');
    expect(app.editor.active?.text()).toContain('  - [x] nested');
    expect(app.editor.active?.dirty).toBe(true);
    await vi.waitFor(() => expect(boxes()[2].checked).toBe(true));

    // The quoted ordered item, then untick the done one.
    boxes()[3].click();
    boxes()[1].click();
    flushSync();
    expect(view.state.doc.line(7).text).toBe('> 1. [x] quoted');
    expect(view.state.doc.line(4).text).toBe('- [ ] done');

    // Ctrl+Z in the editor takes a tick back.
    undo(view);
    expect(view.state.doc.line(4).text).toBe('- [x] done');
  }, 20_000); // the first test loads CodeMirror (a dynamic import): seconds on a loaded machine

  it('leaves the text alone when the clicked line changed under the box', async () => {
    const { app } = setup('- [ ] one\n- [ ] two\n');
    await app.openFile('todo.md');
    comp = mount(EditorPane, { target });
    flushSync();
    const view = await editorView();
    modeBtn('split').click();
    flushSync();
    expect(boxes()).toHaveLength(2);
    // A line typed above, not shown yet (the preview waits for the pause): the boxes still name the old lines.
    view.dispatch({ changes: { from: 0, insert: 'intro\n' }, userEvent: 'input.type' });
    const before = view.state.doc.toString();
    boxes()[0].click();
    flushSync();
    expect(view.state.doc.toString()).toBe(before);
    // Once the preview caught up, the box ticks its (new) line.
    await vi.waitFor(() => expect(preview()?.querySelector('p')?.textContent).toBe('intro'));
    boxes()[0].click();
    expect(view.state.doc.toString()).toBe('intro\n- [x] one\n- [ ] two\n');
  });

  it('remembers the view for the next note and cycles Source → Live → Split → Preview', async () => {
    const { app } = setup();
    await app.openFile('todo.md');
    comp = mount(EditorPane, { target });
    flushSync();
    modeBtn('preview').click();
    flushSync();
    expect(q('[data-testid="editor"]')?.classList.contains('hidden')).toBe(true);
    expect(preview()).not.toBeNull();
    expect(localStorage.getItem('mnote.editor.view')).toBe('preview');
    app.editor.cycleMode();
    flushSync();
    expect(app.editor.active?.mode).toBe('edit');
    app.editor.cycleMode();
    flushSync();
    expect(q('.body')?.getAttribute('data-view')).toBe('live');
    app.editor.cycleMode();
    flushSync();
    expect(q('.body')?.getAttribute('data-view')).toBe('split');
    // A narrow pane: split shows the source alone, and the cycle skips it.
    app.editor.narrow = true;
    app.editor.cycleMode();
    expect(app.editor.active?.mode).toBe('live');
    app.editor.cycleMode();
    expect(app.editor.active?.mode).toBe('preview');
    app.editor.cycleMode();
    expect(app.editor.active?.mode).toBe('edit');
    app.editor.narrow = false;
    app.editor.setMode(app.editor.active, 'split');
    await app.openFile('other.md');
    expect(app.editor.active?.path).toBe('other.md');
    expect(app.editor.active?.mode).toBe('split');
  });
});
