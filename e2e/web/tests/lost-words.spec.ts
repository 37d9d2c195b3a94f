// Issue 23, "never lose a word", the two reproductions as a person meets
// them: an agent's write over a line the person typed (unsaved, autosave
// off; saved, autosave on). The window script e2e/window/chat.sh does the
// first once more in the real window.
import type { Page } from '@playwright/test';
import { expect, openApp, pickTestAgent, sendSteps, stopButton, test, thread, waitTurnEnd, type Serve } from './fixtures';
import { editorText, openNote, readNote, typeAtEnd, writeNote } from './workspace-helpers';

const CACHE = '# 缓存设计\n\n## 目标\n\n- 命中率达到 90%。\n- 第一次访问不超过 200 ms。\n\n## 待办\n\n- 写压测脚本。\n';
const TYPED = '- 周五前给出方案（我正在写，还没保存）。';
const AGENT = CACHE + '- 补充监控指标。\n';

async function autosaveOff(page: Page): Promise<void> {
  const box = page.locator('.pane .status .auto input[type="checkbox"]');
  await box.uncheck();
  await expect(box).not.toBeChecked();
}

/**
 * Autosave off, the person types a line and does not save; the agent reads
 * the unsaved note, asks with a diff from the saved file, writes without
 * the typed line.
 */
async function agentDropsTypedLine(page: Page, serve: Serve): Promise<void> {
  writeNote(serve, '缓存设计.md', CACHE);
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, '缓存设计.md');
  await autosaveOff(page);
  await typeAtEnd(page, TYPED);
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');
  const path = `${serve.workspace}/缓存设计.md`;
  await sendSteps(page, [
    { readFile: { path } },
    {
      permission: {
        toolCall: {
          toolCallId: 'edit-1',
          title: 'Edit 缓存设计.md',
          kind: 'edit',
          content: [{ type: 'diff', path, oldText: CACHE, newText: AGENT }],
        },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      },
    },
    { writeFile: { path, content: AGENT } },
    { message: 'done' },
  ]);
  const dialog = page.getByTestId('permission-dialog');
  await expect(dialog).toBeVisible();
  // Before Allow: the dialog shows what happens to the note as it is in
  // the editor, and names the typed line that would go.
  await expect(dialog.getByTestId('perm-effect')).toContainText('缓存设计.md');
  await expect(dialog.getByTestId('perm-effect-lost')).toContainText(TYPED);
  await expect(dialog.getByTestId('perm-effect').getByTestId('diff')).toContainText(TYPED);
  await page.waitForTimeout(500); // the dialog's guard against held keys
  await dialog.locator('button[data-option="allow"]').click();
  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('write: ok');
}

test('autosave off: an allowed write that drops the typed line is shown first, and the line comes back (bar, Revert)', async ({ page, serve }) => {
  await agentDropsTypedLine(page, serve);
  // After: the editor has the agent's text, and a bar says which of the
  // person's lines went.
  await expect(editorText(page)).toContainText('补充监控指标');
  const bar = page.getByTestId('dropped-bar');
  await expect(bar).toBeVisible();
  await expect(bar).toContainText(TYPED);

  // The turn's Changes start from the editor's text: the typed line shows
  // as removed, and Revert gives it back, to the editor and the disk.
  await thread(page).getByTestId('turn-changes').click();
  const panel = page.getByTestId('changes-panel');
  await expect(panel.getByTestId('unified-diff').filter({ hasText: '缓存设计.md' })).toContainText(TYPED);
  await panel.getByTestId('revert-turn').click();
  await expect(panel.getByTestId('revert-done')).toContainText('1 restored');
  await expect.poll(() => readNote(serve, '缓存设计.md')).toBe(CACHE + TYPED);
  await page.keyboard.press('Escape');
  await expect(editorText(page)).toContainText(TYPED);
});

test('autosave off: “Put it back” returns the typed line beside the agent’s edit', async ({ page, serve }) => {
  await agentDropsTypedLine(page, serve);

  const bar = page.getByTestId('dropped-bar');
  await bar.getByRole('button', { name: 'Put it back' }).click();
  await expect(bar).toBeHidden();
  await expect(editorText(page)).toContainText('补充监控指标');
  await expect(editorText(page)).toContainText(TYPED);
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, '缓存设计.md')).toBe(AGENT + TYPED);
});

test('autosave on: a stale whole-file write keeps the line the person saved meanwhile', async ({ page, serve }) => {
  const PLAN = '# 计划\n\n- 第一步：读代码。\n- 第二步：写测试。\n';
  const LINE = '- 第三步：我刚加的一行。';
  writeNote(serve, 'plan.md', PLAN);
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'plan.md');
  // The agent never reads the note; its content was computed before the
  // person's line existed, and it writes it a while later.
  const stale = '# 计划（已审）\n\n- 第一步：读代码。\n- 第二步：写测试。\n';
  await sendSteps(page, [{ message: 'working' }, { sleepMs: 8000 }, { writeFile: { path: `${serve.workspace}/plan.md`, content: stale } }, { message: 'done' }]);
  await expect(thread(page)).toContainText('working');
  await typeAtEnd(page, LINE);
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, 'plan.md')).toBe(PLAN + LINE);
  // The reproduction needs the write to come after the save.
  expect(await stopButton(page).isVisible(), 'the turn ended before the line was saved: the machine is too slow for this test').toBe(true);

  await waitTurnEnd(page);
  await expect(thread(page)).toContainText('write: ok');
  const merged = '# 计划（已审）\n\n- 第一步：读代码。\n- 第二步：写测试。\n' + LINE;
  await expect.poll(() => readNote(serve, 'plan.md')).toBe(merged);
  await expect(editorText(page)).toContainText('计划（已审）');
  await expect(editorText(page)).toContainText(LINE);
  await expect(page.getByTestId('conflict-bar')).toBeHidden();
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
});

test('autosave on: a stale write over the very lines the person saved shows the conflict bar with both sides', async ({ page, serve }) => {
  writeNote(serve, 'c.md', '# C\nbody\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  await openNote(page, 'c.md');
  await sendSteps(page, [{ message: 'working' }, { sleepMs: 8000 }, { writeFile: { path: `${serve.workspace}/c.md`, content: '# C\nbody\nwritten by the agent\n' } }]);
  await expect(thread(page)).toContainText('working');
  await typeAtEnd(page, 'saved by me');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, 'c.md')).toBe('# C\nbody\nsaved by me');
  expect(await stopButton(page).isVisible(), 'the turn ended before the line was saved: the machine is too slow for this test').toBe(true);
  await waitTurnEnd(page);

  const bar = page.getByTestId('conflict-bar');
  await expect(bar).toBeVisible();
  await expect(editorText(page)).toContainText('saved by me');
  await bar.getByRole('button', { name: 'Show diff' }).click();
  await expect(page.getByTestId('conflict-diff')).toContainText('written by the agent');
  await bar.getByRole('button', { name: 'Keep mine' }).click();
  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect.poll(() => readNote(serve, 'c.md')).toBe('# C\nbody\nsaved by me');
});
