// The notes side against `mnote serve --workspace DIR`: the file tree and
// the editor follow an agent's writes and other programs' edits (a clean
// note reloads, an edited one shows the conflict bar), a turn's changes
// revert from the Changes view, and the @ picker and the open note go
// with a prompt.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { composer, expect, openApp, pickTestAgent, recordPerf, sendSteps, test, thread, waitTurnEnd } from './fixtures';
import { agentRecords, editorText, openNote, readNote, showSource, tab, treeRow, typeAtEnd, writeNote } from './workspace-helpers';

test('an agent edits a note: the open editor and the tree update at once', async ({ page, serve }) => {
  writeNote(serve, 'notes/plan.md', '# Plan\n- one\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'notes/plan.md');
  await showSource(page);
  await expect(editorText(page)).toContainText('- one');

  const plan = `${serve.workspace}/notes/plan.md`;
  const fresh = `${serve.workspace}/notes/fresh.md`;
  await sendSteps(page, [
    { writeFile: { path: plan, content: '# Plan\n- one\n- two, by the agent\n' } },
    { writeFile: { path: fresh, content: '# Fresh\n' } },
    { message: 'done' },
  ]);
  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('write: ok');

  // The editor took the agent's text and is not dirty; the disk has it.
  await expect(editorText(page)).toContainText('- two, by the agent');
  await expect(tab(page, 'notes/plan.md').locator('..').locator('.close.dirty')).toHaveCount(0);
  expect(readNote(serve, 'notes/plan.md')).toBe('# Plan\n- one\n- two, by the agent\n');
  // The tree shows the new note, marked as the agent's for a moment.
  await expect(treeRow(page, 'notes/fresh.md')).toBeVisible();
  // The thread says which files the turn changed.
  await expect(thread(page).getByTestId('turn-changes')).toContainText('2 files changed');
});

test('another program edits the open note: a clean one reloads; an edited one shows the conflict bar; Take theirs', async ({
  page,
  serve,
}) => {
  writeNote(serve, 'ext.md', '# Ext\nv1\n');
  // Unsaved edits are the point here: autosave (on by default) off.
  await page.addInitScript(() => localStorage.setItem('mnote.autosave', '0'));
  await openApp(page, serve);
  await openNote(page, 'ext.md');
  await expect(editorText(page)).toContainText('v1');

  // Clean: reloads.
  writeNote(serve, 'ext.md', '# Ext\nv2 from outside\n');
  await expect(editorText(page)).toContainText('v2 from outside');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');

  // Edited: the conflict bar, the edits kept.
  await typeAtEnd(page, 'my line');
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');
  // The edits reach mnote's buffer (pushed 300 ms after typing stops): agents read them from there.
  await expect.poll(async () => (await serve.call<{ dirty: boolean; content: string }>('files.open', { path: 'ext.md' })).content).toContain('my line');
  writeNote(serve, 'ext.md', '# Ext\nv3 from outside\n');
  const bar = page.getByTestId('conflict-bar');
  await expect(bar).toBeVisible();
  await expect(editorText(page)).toContainText('my line');

  // Saving is refused until the conflict is resolved.
  await page.keyboard.press('Control+s');
  await expect(bar).toBeVisible();
  expect(readNote(serve, 'ext.md')).toBe('# Ext\nv3 from outside\n');

  await bar.getByRole('button', { name: 'Show diff' }).click();
  const diff = page.getByTestId('conflict-diff');
  await expect(diff).toContainText('v3 from outside');
  await expect(diff).toContainText('my line');

  await bar.getByRole('button', { name: 'Take theirs' }).click();
  await expect(bar).toBeHidden();
  await expect(editorText(page)).toContainText('v3 from outside');
  await expect(editorText(page)).not.toContainText('my line');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');

  // And a save writes the editor's text.
  await typeAtEnd(page, 'saved line');
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, 'ext.md')).toContain('saved line');
});

test('a deleted open note stays in its tab, marked; Save again writes it back', async ({ page, serve }) => {
  const abs = writeNote(serve, 'gone.md', '# Gone\nkeep me\n');
  await openApp(page, serve);
  await openNote(page, 'gone.md');
  rmSync(abs);
  await expect(page.getByTestId('deleted-bar')).toBeVisible();
  await expect(treeRow(page, 'gone.md')).toHaveCount(0);
  await expect(editorText(page)).toContainText('keep me');
  await page.getByTestId('deleted-bar').getByRole('button', { name: 'Save again' }).click();
  await expect(page.getByTestId('deleted-bar')).toBeHidden();
  await expect.poll(() => readNote(serve, 'gone.md')).toBe('# Gone\nkeep me\n');
  await expect(treeRow(page, 'gone.md')).toBeVisible();
});

test('revert a turn from the Changes view: the file on disk is restored, a file it made is removed', async ({ page, serve }) => {
  writeNote(serve, 'r.md', 'original\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'r.md');
  await sendSteps(page, [
    { writeFile: { path: `${serve.workspace}/r.md`, content: 'changed by the agent\n' } },
    { writeFile: { path: `${serve.workspace}/made.md`, content: 'made by the agent\n' } },
    { message: 'edited' },
  ]);
  await waitTurnEnd(page);
  await expect(editorText(page)).toContainText('changed by the agent');
  expect(readNote(serve, 'made.md')).toBe('made by the agent\n');

  await thread(page).getByTestId('turn-changes').click();
  const panel = page.getByTestId('changes-panel');
  await expect(panel).toBeVisible();
  await expect(panel).toContainText('r.md');
  await expect(panel).toContainText('made.md');
  await expect(panel.getByTestId('unified-diff').filter({ hasText: 'r.md' })).toContainText('+changed by the agent');

  await panel.getByTestId('revert-turn').click();
  await expect(panel.getByTestId('revert-done')).toContainText('1 restored, 1 deleted');
  await expect(panel.getByTestId('revert-turn')).toBeDisabled(); // once is all
  await expect.poll(() => readNote(serve, 'r.md')).toBe('original\n');
  expect(readNote(serve, 'made.md')).toBeNull();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  // The open editor reloaded; the tree lost the removed file.
  await expect(editorText(page)).toContainText('original');
  await expect(treeRow(page, 'made.md')).toHaveCount(0);
});

test('a revert that meets a later edit writes nothing and shows the diff', async ({ page, serve }) => {
  writeNote(serve, 'c.md', 'v0\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ writeFile: { path: `${serve.workspace}/c.md`, content: 'v1 by the agent\n' } }]);
  // The turn's checkpoint is stored (its Changes chip shows) before the
  // other program writes: an edit during the turn would count as the turn's.
  await expect(thread(page).getByTestId('turn-changes')).toBeVisible();
  await waitTurnEnd(page);
  writeNote(serve, 'c.md', 'v2 by someone else\n');
  await thread(page).getByTestId('turn-changes').click();
  const panel = page.getByTestId('changes-panel');
  await panel.getByTestId('revert-turn').click();
  const conflict = panel.getByTestId('revert-conflict');
  await expect(conflict).toContainText('Nothing was reverted');
  await expect(conflict).toContainText('c.md');
  await expect(conflict.getByTestId('unified-diff')).toContainText('v2 by someone else');
  expect(readNote(serve, 'c.md')).toBe('v2 by someone else\n');
});

test('the @ picker inserts a path; the prompt carries the mention and the open note with its selection', async ({ page, serve }) => {
  writeNote(serve, 'notes/garden.md', '# Garden\n- tomatoes\n');
  writeNote(serve, 'ctx.md', 'line one\nline two\nline three\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'ctx.md');
  // Select lines 2–3.
  await page.locator('.pane .cm-line', { hasText: 'line two' }).click();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+End');
  const chip = page.getByTestId('context-chip');
  await expect(chip).toContainText('ctx.md');
  await expect(chip).toContainText('lines 2–3');

  const box = composer(page);
  await box.click();
  await box.pressSequentially('look at @gard');
  const menu = page.getByRole('listbox', { name: 'Files' });
  await expect(menu.getByRole('option').first()).toContainText('garden.md');
  await box.press('Enter');
  await expect(box).toHaveValue('look at @notes/garden.md ');
  await expect(menu).toBeHidden();
  await box.press('Enter');
  await waitTurnEnd(page);

  // The default turn echoes the prompt's text blocks: the text and the quoted selection.
  const answer = thread(page).getByTestId('assistant-message').last();
  await expect(answer).toContainText('echo: look at @notes/garden.md');
  await expect(answer).toContainText('Selected in ctx.md (lines 2–3)');
  await expect(answer).toContainText('line two');
  // The files went as embedded resources (the test agent takes embeddedContext).
  await expect
    .poll(() =>
      agentRecords(serve)
        .filter((r) => r.sessionUpdate === 'user_message_chunk' && r.content?.type === 'resource')
        .map((r) => String((r.content?.resource as { uri?: string } | undefined)?.uri ?? '').replace(/^.*\/ws\//, '')),
    )
    .toEqual(['ctx.md', 'notes/garden.md']);
});

test('tree: new note, rename with F2, move by dragging onto a folder, delete with Undo', async ({ page, serve }) => {
  writeNote(serve, 'box/keep.md', '# keep\n');
  await openApp(page, serve);
  await page.getByRole('button', { name: 'New note', exact: true }).click();
  const name = page.getByRole('textbox', { name: 'New note name' });
  await name.fill('first');
  await name.press('Enter');
  await expect(tab(page, 'first.md')).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => readNote(serve, 'first.md')).toBe('');

  await treeRow(page, 'first.md').click();
  await page.keyboard.press('F2');
  const rename = page.getByRole('textbox', { name: 'New name' });
  await rename.fill('second.md');
  await rename.press('Enter');
  await expect(treeRow(page, 'second.md')).toBeVisible();
  await expect(tab(page, 'second.md')).toBeVisible(); // the open tab followed
  expect(readNote(serve, 'first.md')).toBeNull();

  await treeRow(page, 'second.md').dragTo(treeRow(page, 'box'));
  await expect.poll(() => readNote(serve, 'box/second.md')).toBe('');
  // The tree shows where it went (the folder opened), the tab followed.
  await expect(treeRow(page, 'box/second.md')).toBeVisible();
  await expect(tab(page, 'box/second.md')).toBeVisible();

  await treeRow(page, 'box/keep.md').click();
  await page.keyboard.press('Delete');
  await expect(treeRow(page, 'box/keep.md')).toHaveCount(0);
  expect(readNote(serve, 'box/keep.md')).toBeNull();
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(treeRow(page, 'box/keep.md')).toBeVisible();
  await expect.poll(() => readNote(serve, 'box/keep.md')).toBe('# keep\n');
});

// The speed figures, measured in the page: a workspace of 10,000
// notes in 1,000 folders shows its tree (target 1 s from navigation, the
// bound asserted 5 s; printed with its ratio to the app's shell shown in
// the same load, a figure a loaded machine does not move), and a file another program writes appears in the
// tree (target 300 ms, asserted 2 s; the median of 5). WARN lines when a
// target is missed.
// @perf: it runs alone, after the others (playwright.config.ts).
test('perf: a tree of 10,000 notes in 1,000 folders; an external change shows in the tree', { tag: '@perf' }, async ({ page, serve }) => {
  for (let a = 0; a < 10; a++) {
    for (let t = 0; t < 100; t++) {
      const dir = path.join(serve.workspace, `area-${a}`, `topic-${t}`);
      mkdirSync(dir, { recursive: true });
      for (let n = 0; n < 10; n++) writeFileSync(path.join(dir, `note-${n}.md`), `# Note ${a}.${t}.${n}\n`);
    }
  }
  await page.addInitScript(() => {
    const w = window as unknown as { __seen: Record<string, number> };
    w.__seen = {};
    new MutationObserver(() => {
      // The reference: the app's shell (the sessions list), which the tree's size does not change.
      if (!('@shell' in w.__seen) && document.querySelector('aside.sidebar')) w.__seen['@shell'] = performance.timeOrigin + performance.now();
      for (const el of document.querySelectorAll('[data-testid="file-tree"] [data-path]')) {
        const p = el.getAttribute('data-path')!;
        if (!(p in w.__seen)) w.__seen[p] = performance.timeOrigin + performance.now();
      }
    }).observe(document, { subtree: true, childList: true });
  });
  const nav = Date.now();
  await openApp(page, serve);
  await expect(treeRow(page, 'area-0')).toBeVisible();
  const seen = () => page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
  const treeMs = Math.round((await seen())['area-0'] - nav);
  const shellMs = Math.round((await seen())['@shell'] - nav);
  await expect(page.locator('.notes footer.count')).toContainText('11,010');

  const changes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const rel = `new-${i}.md`;
    const t0 = Date.now();
    writeFileSync(path.join(serve.workspace, rel), 'new\n');
    await expect(treeRow(page, rel)).toBeVisible();
    changes.push(Math.round((await seen())[rel] - t0));
  }
  const median = [...changes].sort((a, b) => a - b)[2];
  // The ratio to the shell shown in the same load: the machine's load cancels out (1 = the tree costs nothing more).
  const ratio = Math.round((treeMs / Math.max(1, shellMs)) * 100) / 100;
  recordPerf('workspace10k', { files: 10_000, folders: 1_010, treeShownMs: treeMs, shellShownMs: shellMs, treeToShellRatio: ratio, externalChangeMs: changes, externalChangeMedianMs: median });
  console.log(`workspace10k: tree ${treeMs} ms, shell ${shellMs} ms (reference), ratio ${ratio}`);
  if (treeMs > 1000) console.log(`WARN: workspace10k: the tree showed after ${treeMs} ms > 1000 ms target`);
  if (median > 300) console.log(`WARN: workspace10k: an external change took ${median} ms (median) > 300 ms target`);
  expect(treeMs).toBeLessThan(5000);
  expect(median).toBeLessThan(2000);
});
