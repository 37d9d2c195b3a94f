// Issue 13, "never lose a word": an agent writes a note the person has
// unsaved text in. The typed text survives: merged with the agent's edit
// when they touch different lines (the tab stays unsaved and says so; the
// disk holds the agent's edit until the person saves), the conflict bar
// when they touch the same lines (Keep mine keeps it).
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd } from './fixtures';
import { editorText, openNote, readNote, showSource, typeAtEnd, writeNote } from './workspace-helpers';

async function autosaveOff(page: import('@playwright/test').Page): Promise<void> {
  const box = page.locator('.pane .status .auto input[type="checkbox"]');
  await box.uncheck();
  await expect(box).not.toBeChecked();
}

test('typed, unsaved text survives an agent writing the note (merged; saving writes both)', async ({ page, serve }) => {
  writeNote(serve, 'plan.md', '# Plan\n\n- one\n- two\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'plan.md');
  await showSource(page);
  await autosaveOff(page);
  await typeAtEnd(page, 'my unsaved line');
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');

  await sendSteps(page, [{ writeFile: { path: `${serve.workspace}/plan.md`, content: '# Plan, by the agent\n\n- one\n- two\n' } }, { message: 'done' }]);
  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('write: ok');

  // Both are in the editor; it is still unsaved and says what happened.
  await expect(editorText(page)).toContainText('# Plan, by the agent');
  await expect(editorText(page)).toContainText('my unsaved line');
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');
  const bar = page.getByTestId('merged-bar');
  await expect(bar).toBeVisible();
  // The disk has the agent's edit only; saving writes both.
  expect(readNote(serve, 'plan.md')).toBe('# Plan, by the agent\n\n- one\n- two\n');
  await bar.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect(bar).toBeHidden();
  await expect.poll(() => readNote(serve, 'plan.md')).toBe('# Plan, by the agent\n\n- one\n- two\nmy unsaved line');
});

test('an agent writing the lines the person is typing: the conflict bar; Keep mine keeps the typed text', async ({ page, serve }) => {
  writeNote(serve, 'c.md', '# C\nbody\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'c.md');
  await autosaveOff(page);
  await typeAtEnd(page, 'typed by me');
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');

  await sendSteps(page, [{ writeFile: { path: `${serve.workspace}/c.md`, content: '# C\nbody\nwritten by the agent\n' } }]);
  await waitTurnEnd(page);
  const bar = page.getByTestId('conflict-bar');
  await expect(bar).toBeVisible();
  await expect(editorText(page)).toContainText('typed by me');
  expect(readNote(serve, 'c.md')).toBe('# C\nbody\nwritten by the agent\n');

  await bar.getByRole('button', { name: 'Show diff' }).click();
  await expect(page.getByTestId('conflict-diff')).toContainText('written by the agent');
  await bar.getByRole('button', { name: 'Keep mine' }).click();
  await expect(bar).toBeHidden();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, 'c.md')).toBe('# C\nbody\ntyped by me');
  // The agent's version stays in the turn's Changes.
  await thread(page).getByTestId('turn-changes').click();
  await expect(page.getByTestId('changes-panel')).toContainText('+written by the agent');
});

test('review an agent’s edit per hunk: Reject puts back exactly that hunk’s text, Undo applies it again', async ({ page, serve }) => {
  writeNote(serve, 'h.md', '# H\none\ntwo\nthree\nfour\nfive\nsix\nseven\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'h.md');
  const agent = '# H by the agent\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight, added\n';
  await sendSteps(page, [{ writeFile: { path: `${serve.workspace}/h.md`, content: agent } }]);
  await waitTurnEnd(page);
  await expect(editorText(page)).toContainText('eight, added');
  // The editor marks the agent's lines still to review and offers them.
  await expect(page.locator('.pane .cm-agent-change')).toHaveCount(2);
  await expect(page.getByTestId('review-agent-changes')).toHaveText('2 agent changes to review');

  await thread(page).getByTestId('turn-changes').click();
  const panel = page.getByTestId('changes-panel');
  const review = panel.locator('[data-testid="hunk-review"][data-path="h.md"]');
  const hunks = review.getByTestId('hunk');
  await expect(hunks).toHaveCount(2);
  await hunks.filter({ hasText: 'by the agent' }).getByRole('button', { name: 'Reject' }).click();
  await expect.poll(() => readNote(serve, 'h.md')).toBe('# H\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight, added\n');
  await expect(hunks).toHaveCount(1);
  // The open editor followed; the Changes diff shows what was kept.
  await expect(editorText(page)).not.toContainText('by the agent');
  await expect(panel.getByTestId('unified-diff').first()).not.toContainText('by the agent');

  await review.getByTestId('undo-reject').click();
  await expect.poll(() => readNote(serve, 'h.md')).toBe(agent);
  await expect(hunks).toHaveCount(2);
  await hunks.filter({ hasText: 'eight, added' }).getByRole('button', { name: 'Keep' }).click();
  await expect(hunks.filter({ hasText: 'eight, added' })).toContainText('kept');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('review-agent-changes')).toHaveText('1 agent change to review');
  await expect(page.locator('.pane .cm-agent-change')).toHaveCount(1);
});

test('an agent’s write outside the notes folder is refused, and the page says so', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const name = `outside-${Date.now()}.md`;
  const outside = `${serve.workspace}/../${name}`;
  await sendSteps(page, [{ writeFile: { path: outside, content: 'x' } }]);
  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('write error');
  await expect(page.getByText('outside the notes folder: refused')).toBeVisible();
  expect(readNote(serve, `../${name}`)).toBeNull();
});
