// The chat where a person tripped (issue 24): a stopped answer stays in
// view; forks have their own titles and marks; an answered question stays
// in the thread; a plan bar belongs to its turn; answers become notes.
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd, type Locator, type Page } from './fixtures';
import { editorText, openNote, readNote, showSource, tab, writeNote } from './workspace-helpers';

/** Whether el's bottom is inside the thread's scroller, above what follows it. */
async function endInView(page: Page, el: Locator): Promise<boolean> {
  const box = await el.boundingBox();
  const view = await thread(page).boundingBox();
  if (!box || !view) return false;
  return box.y + box.height <= view.y + view.height + 1 && box.y + box.height > view.y;
}

test('chat polish: after Esc the partial answer’s end stays in view above the stopped bar', async ({ page, serve }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page, serve);
  await pickTestAgent(page);
  const lines = Array.from({ length: 40 }, (_, i) => `第 ${i + 1} 行：缓存命中率的说明。`).join('\n\n');
  await sendSteps(page, [{ message: lines + '\n\n写到这里停下', chunk: 200 }, { waitForCancel: true }]);
  const last = thread(page).getByTestId('assistant-message').getByText('写到这里停下');
  await expect(last).toBeVisible();
  await expect.poll(() => endInView(page, last)).toBe(true);
  await page.keyboard.press('Escape');
  await waitTurnEnd(page, 10_000);
  const stopped = page.getByText('Stopped: the turn was cancelled.');
  await expect(stopped).toBeVisible();
  // No scrolling: the answer's end, its actions row too, is in view above the bar.
  const answer = thread(page).getByTestId('assistant-message');
  await expect(answer.locator('.msg-actions')).toBeVisible();
  await expect.poll(() => endInView(page, answer)).toBe(true);
  await expect.poll(() => thread(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeLessThanOrEqual(1);
  const bar = await stopped.boundingBox();
  const end = await answer.boundingBox();
  expect(end!.y + end!.height).toBeLessThanOrEqual(bar!.y + 1);
});

/** The interface in Chinese, as a person's saved choice is. */
async function chinese(page: Page): Promise<void> {
  await page.addInitScript(() => localStorage.setItem('mnote.locale', 'zh-CN'));
}

/** Waits until the turn has ended, in the Chinese interface. */
async function turnEndZh(page: Page): Promise<void> {
  await expect(page.locator('.composer').getByRole('button', { name: '发送' })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.composer').getByRole('button', { name: '停止' })).toHaveCount(0);
}

/** A step script whose Han characters are \u escapes: the prompt does not hold the words the agent says. */
function escapedSteps(steps: unknown[]): string {
  return JSON.stringify(steps).replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

test('chat polish: a fork has its own title and mark; Ctrl+K shows a copied message once, without Markdown', async ({ page, serve }) => {
  await chinese(page);
  await openApp(page, serve).catch(() => undefined); // the sidebar's name is Chinese
  await expect(page.locator('.sidebar button.agent')).toBeVisible();
  await page.locator('.sidebar button.agent').click();
  const sidePicker = page.getByTestId('sidebar-agent-picker');
  await sidePicker.getByRole('combobox', { name: '搜索智能体' }).fill('Test Agent');
  await sidePicker.locator('[role="option"][data-name="Test Agent"]').click();
  await expect(sidePicker.getByRole('listbox')).toBeHidden();
  await expect(sidePicker.locator('button.agent .name')).toHaveText('Test Agent');

  const box = page.getByRole('combobox');
  await box.fill(escapedSteps([{ title: '缓存实验' }, { message: '## 缓存设计\n\n**命中率**等于 `命中数 / 总数`，见 [[实验记录]]。' }]));
  await box.press('Enter');
  const answers = thread(page).getByTestId('assistant-message');
  await expect(answers).toHaveCount(1);
  await turnEndZh(page);
  await box.fill('第二个问题');
  await box.press('Enter');
  await expect(answers).toHaveText([/命中率/, 'echo: 第二个问题']);
  await turnEndZh(page);
  await expect(page.locator('.chat .head .title')).toHaveText('缓存实验');
  // The agent's name in the header opens the agent picker (the same menu:
  // the search field focused, the session's agent highlighted, "添加自己的智能体…" last).
  await page.getByTestId('header-agent').click();
  const headPicker = page.getByTestId('header-agent-picker');
  await expect(headPicker.getByRole('combobox', { name: '搜索智能体' })).toBeFocused();
  await expect(headPicker.locator('[role="option"][aria-selected="true"]')).toHaveAttribute('data-name', 'Test Agent');
  await expect(headPicker.locator('[data-action]').last()).toHaveText('添加自己的智能体…');
  await expect(headPicker.getByRole('listbox')).toBeInViewport();
  await page.keyboard.press('Escape');
  await expect(headPicker.getByRole('listbox')).toBeHidden();
  await expect(page.getByTestId('header-agent')).toBeFocused();

  // Edit the second prompt and resend: the fork opens with its own title.
  const second = thread(page).getByTestId('user-message').nth(1);
  await expect(second).toHaveText('第二个问题');
  await second.hover();
  await second.getByTestId('edit-message').click();
  const edit = second.getByTestId('edit-message-input');
  await edit.fill('独特的分叉问题');
  await edit.press('Enter');
  await expect(page.locator('.chat .head .title')).toHaveText('缓存实验 (分叉 1)');
  await turnEndZh(page);
  const rows = page.locator('.history button.open');
  await expect(rows).toHaveCount(2);
  const forkRow = rows.filter({ hasText: '缓存实验 (分叉 1)' });
  await expect(forkRow.getByTestId('fork-mark')).toHaveAttribute('title', '分叉自“缓存实验”');
  await expect(rows.filter({ hasText: /^缓存实验$/ }).getByTestId('fork-mark')).toHaveCount(0);
  await expect(rows.locator('.title')).toHaveText(['缓存实验 (分叉 1)', '缓存实验']);

  // Ctrl+K: the answer copied into the fork is one hit, in the original, its Markdown gone.
  await page.keyboard.press('Control+k');
  await page.keyboard.type('命中率');
  const hits = page.getByTestId('search-results').getByRole('option');
  await expect(hits).toHaveCount(1);
  await expect(hits.locator('.title')).toHaveText('缓存实验');
  await expect(hits.locator('.snippet')).toHaveText('缓存设计 命中率等于 命中数 / 总数，见 实验记录。');
  await expect(hits.locator('mark')).toHaveText(['命中率']);
  // The fork's own turn is found in the fork, marked as one.
  await page.getByRole('searchbox', { name: '搜索会话' }).fill('独特');
  await expect(hits).toHaveCount(2);
  await expect(hits.getByTestId('fork-mark')).toHaveCount(2);
  await expect(hits.getByTestId('fork-mark').first()).toHaveAttribute('title', '分叉自“缓存实验”');
});

test('chat polish: a plan bar belongs to its turn; an answered question stays in the thread', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);
  const bar = page.locator('.plan-now');
  const plan = (status: string) => ({
    plan: [
      { content: '读笔记', priority: 'medium', status: 'completed' },
      { content: '写总结', priority: 'medium', status },
    ],
  });
  // Turn 1 has a plan: its bar shows while it runs.
  await sendSteps(page, [plan('in_progress'), { message: 'planning' }, { waitForCancel: true }]);
  await expect(bar).toBeVisible();
  await expect(bar).toContainText('写总结');
  await page.keyboard.press('Escape');
  await waitTurnEnd(page);
  await expect(bar).toBeHidden();
  // Turn 2 has none: no bar, though turn 1's plan was left unfinished.
  await sendSteps(page, [{ message: 'no plan here' }, { waitForCancel: true }]);
  await expect(thread(page).getByTestId('assistant-message').last()).toHaveText('no plan here');
  await expect(page.locator('.composer').getByRole('button', { name: 'Stop' })).toBeVisible();
  await expect(bar).toHaveCount(0);
  // The plan stays in its own turn in the thread.
  await expect(thread(page).locator('.entry.kind-plan')).toHaveCount(1);
  await page.keyboard.press('Escape');
  await waitTurnEnd(page);

  // The agent asks; the person answers; the question and the answer stay.
  await sendSteps(page, [
    {
      elicit: {
        message: '去哪个城市？',
        requestedSchema: {
          type: 'object',
          properties: {
            city: { type: 'string', title: '城市' },
            budget: { type: 'string', title: '预算', oneOf: [{ const: 'low', title: '省钱' }, { const: 'high', title: '舒适' }] },
            train: { type: 'boolean', title: '坐火车', default: true },
          },
          required: ['city'],
        },
      },
    },
  ]);
  const form = page.getByTestId('elicitation-form');
  await expect(form).toBeVisible();
  await form.getByLabel('城市').fill('杭州');
  await form.getByLabel('预算').selectOption({ label: '舒适' });
  await form.getByRole('button', { name: 'Send' }).click();
  await expect(form).toBeHidden();
  await waitTurnEnd(page);
  const card = thread(page).getByTestId('question-card');
  const answered = async () => {
    await expect(card).toHaveCount(1);
    await expect(card.getByTestId('question-message')).toHaveText('去哪个城市？');
    await expect(card).toContainText('You answered');
    await expect(card.getByTestId('question-answer').locator('.row')).toHaveText(['城市杭州', '预算舒适', '坐火车Yes']);
  };
  await answered();
  // After reopening the session (a new page load): still there, from the transcript.
  await page.reload();
  await page.locator('.history button.open').first().click();
  await answered();
});

test('chat polish: an answer saved as a note, and inserted at the cursor of the open note', async ({ page, serve }) => {
  writeNote(serve, '日记.md', '第一行\n第二行\n');
  await openApp(page, serve);
  await pickTestAgent(page);
  const md = '## 缓存实验总结\n\n命中率 **80%**，见 [[实验记录]]。';
  await sendSteps(page, [{ message: md }]);
  const answer = thread(page).getByTestId('assistant-message');
  await expect(answer).toContainText('命中率');
  await waitTurnEnd(page);

  // No note open: nothing to insert into.
  await expect(answer.getByTestId('insert-answer-note')).toBeDisabled();

  // Save as note: named after its heading, holding its Markdown, opened.
  await answer.hover();
  await answer.getByTestId('save-answer-note').click();
  await expect(tab(page, '缓存实验总结.md')).toBeVisible();
  await showSource(page);
  await expect(editorText(page)).toContainText('命中率 **80%**');
  expect(readNote(serve, '缓存实验总结.md')).toBe(md + '\n');
  // Again: a second note, numbered.
  await answer.getByTestId('save-answer-note').click();
  await expect(tab(page, '缓存实验总结 2.md')).toBeVisible();
  expect(readNote(serve, '缓存实验总结 2.md')).toBe(md + '\n');

  // Insert into the open note, at its cursor (the end of its first line).
  await openNote(page, '日记.md');
  await editorText(page).getByText('第一行').click();
  await page.keyboard.press('End');
  await answer.hover();
  await answer.getByTestId('insert-answer-note').click();
  await expect(editorText(page)).toContainText('第一行## 缓存实验总结');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '日记.md')).toBe('第一行' + md + '\n第二行\n');

  // Keep both in the conflict bar: the typed text, then the disk's below a marker.
  await page.locator('.pane .status .auto input[type="checkbox"]').uncheck();
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('我的新句子');
  await sendSteps(page, [{ writeFile: { path: `${serve.workspace}/日记.md`, content: '智能体写的\n' } }]);
  await waitTurnEnd(page);
  const bar = page.getByTestId('conflict-bar');
  await expect(bar).toBeVisible();
  await bar.getByRole('button', { name: 'Keep both' }).click();
  await expect(bar).toBeHidden();
  await page.keyboard.press('Control+s');
  await expect
    .poll(() => readNote(serve, '日记.md'))
    .toBe('第一行' + md + '\n第二行\n我的新句子\n\n<!-- mnote: the version on disk follows (keep both) -->\n\n智能体写的\n');
});

// Chinese answers bold a label with its colon ("**注意：**先备份") and quoted
// text ("**“缓存”**"); CommonMark leaves those asterisks as text. The chat,
// the note's preview and live preview show them bold alike.
test('bold beside Chinese punctuation: in an answer, in the preview and in live preview', async ({ page, serve }) => {
  const TEXT = '**注意：**先备份，再谈**“缓存”**。';
  writeNote(serve, '提示.md', `# 提示\n\n${TEXT}\n\n末行\n`);
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: TEXT }]);
  await waitTurnEnd(page);
  const answer = thread(page).getByTestId('assistant-message').last();
  await expect(answer.locator('strong')).toHaveText(['注意：', '“缓存”']);
  await expect(answer).not.toContainText('**');

  await openNote(page, '提示.md');
  await editorText(page).locator('.cm-line', { hasText: '末行' }).click();
  const line = editorText(page).locator('.cm-line', { hasText: '先备份' });
  await expect(line).toHaveText('注意：先备份，再谈“缓存”。');
  await page.getByTestId('view-modes').locator('[data-mode="preview"]').click();
  await expect(page.getByTestId('preview').locator('strong')).toHaveText(['注意：', '“缓存”']);
});
