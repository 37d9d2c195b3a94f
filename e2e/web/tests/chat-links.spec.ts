// Wikilinks in the chat (issue 14): the test agent answers with
// [[会议记录#决定]], an unresolved [[没有这篇]] and a relative Markdown link;
// they are links without an href (the page never navigates), the missing
// one is marked, and a click opens the note in the editor at the heading.
import { expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd } from './fixtures';
import { tab, writeNote } from './workspace-helpers';

test('a wikilink in an answer opens the note at its heading', async ({ page, serve }) => {
  writeNote(serve, '笔记/会议记录.md', '# 会议记录\n\n议程\n\n## 决定\n下周发布。\n');
  writeNote(serve, 'other.md', '# Other\n');
  await openApp(page, serve);
  await expect
    .poll(async () => (await serve.call<unknown[]>('notes.search', { query: '发布' })).length, { timeout: 15_000 })
    .toBe(1);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: '见 [[会议记录#决定]]、[[没有这篇]] 和 [全文](笔记/会议记录.md)。' }]);
  await waitTurnEnd(page);

  const answer = thread(page).getByTestId('assistant-message');
  const link = answer.locator('a.md-wikilink', { hasText: '会议记录 › 决定' });
  const missing = answer.locator('a.md-wikilink', { hasText: '没有这篇' });
  const rel = answer.locator('a.md-notelink', { hasText: '全文' });
  await expect(missing).toHaveClass(/unresolved/);
  await expect(missing).toHaveAttribute('title', 'No such note — click to create');
  await expect(missing).toHaveCSS('text-decoration-style', 'dashed');
  await expect(link).not.toHaveClass(/unresolved/);
  await expect(rel).not.toHaveClass(/unresolved/);
  for (const a of [link, missing, rel]) await expect(a).not.toHaveAttribute('href', /.*/);

  const url = page.url();
  await link.click();
  await expect(tab(page, '笔记/会议记录.md')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.pane .cm-activeLine')).toHaveText('## 决定');
  expect(page.url()).toBe(url);

  // The relative link opens the note too (another note first).
  await page.keyboard.press('Control+p');
  await page.getByRole('dialog', { name: 'Quick Open' }).getByRole('combobox').fill('other');
  await page.keyboard.press('Enter');
  await expect(tab(page, 'other.md')).toHaveAttribute('aria-selected', 'true');
  await rel.click();
  await expect(tab(page, '笔记/会议记录.md')).toHaveAttribute('aria-selected', 'true');
  expect(page.url()).toBe(url);
});
