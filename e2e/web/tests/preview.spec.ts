// Issue 13, the preview beside the editor: a note with tasks opened in
// Split shows the editor and its preview side by side; typing shows in the
// preview; a task box ticked in the preview (click, or Space) puts [x] at
// that item's line in the editor, Ctrl+Z takes it back, and saving writes
// it to disk with nothing else changed.
import { expect, openApp, test } from './fixtures';
import { editorText, openNote, readNote, writeNote } from './workspace-helpers';

// Wide enough for the note pane to reach the 700 px split needs beside the notes and the chat.
test.use({ viewport: { width: 1920, height: 1000 } });

const NOTE = '# 待办\n\n- [ ] 买牛奶\n- [x] done\n  - [ ] nested item\n\n> 1. [ ] quoted\n';

test('Split: the preview follows typing, and a task box ticks its line in the note (saved to disk)', async ({ page, serve }) => {
  writeNote(serve, 'tasks.md', NOTE);
  await openApp(page, serve);
  await openNote(page, 'tasks.md');
  await page.locator('.pane .status .auto input[type="checkbox"]').uncheck();

  const modes = page.getByTestId('view-modes');
  await modes.getByRole('button', { name: 'Split' }).click();
  await expect(modes.getByRole('button', { name: 'Split' })).toHaveAttribute('aria-pressed', 'true');
  const preview = page.getByTestId('preview');
  await expect(preview).toBeVisible();
  await expect(editorText(page)).toBeVisible();
  // Side by side: the preview is to the right of the editor.
  const e = (await page.getByTestId('editor').boundingBox())!;
  const p = (await preview.boundingBox())!;
  expect(p.x).toBeGreaterThanOrEqual(e.x + e.width - 2);
  await expect(preview.locator('h1')).toHaveText('待办');

  // Typing shows in the preview.
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('A **fresh** line');
  await expect(preview.locator('strong')).toHaveText('fresh');

  // Click the nested box: [x] at that line in the editor; the tab is unsaved.
  const boxes = preview.locator('input.md-task');
  await expect(boxes).toHaveCount(4);
  await boxes.nth(2).click();
  await expect(editorText(page)).toContainText('- [x] nested item');
  await expect(boxes.nth(2)).toBeChecked();
  await expect(page.getByTestId('save-state')).toHaveText('Unsaved');

  // Space on a focused box does the same (the quoted ordered item).
  await boxes.nth(3).focus();
  await page.keyboard.press('Space');
  await expect(editorText(page)).toContainText('> 1. [x] quoted');
  await expect(boxes.nth(3)).toBeChecked();

  // Ctrl+Z in the editor takes the last tick back.
  await editorText(page).click();
  await page.keyboard.press('Control+z');
  await expect(editorText(page)).toContainText('> 1. [ ] quoted');
  await expect(boxes.nth(3)).not.toBeChecked();

  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  await expect
    .poll(() => readNote(serve, 'tasks.md'))
    .toBe('# 待办\n\n- [ ] 买牛奶\n- [x] done\n  - [x] nested item\n\n> 1. [ ] quoted\nA **fresh** line');

  // The view is remembered across a reload.
  await page.reload();
  await openNote(page, 'tasks.md');
  await expect(page.getByTestId('view-modes').getByRole('button', { name: 'Split' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByTestId('preview')).toBeVisible();

  // A narrow note pane: split shows the editor alone (and cannot be chosen) until it is wide again.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByTestId('view-modes').getByRole('button', { name: 'Split' })).toBeDisabled();
  await expect(page.getByTestId('preview')).toHaveCount(0);
  await expect(editorText(page)).toBeVisible();
  await page.setViewportSize({ width: 1920, height: 1000 });
  await expect(page.getByTestId('preview')).toBeVisible();
});

test('Split: the preview scrolls in step with the editor', async ({ page, serve }) => {
  const sections = Array.from({ length: 60 }, (_, i) => `## Section ${i + 1}\n\nSome text of section ${i + 1}.\n`).join('\n');
  writeNote(serve, 'long.md', '# Long\n\n' + sections);
  await openApp(page, serve);
  await openNote(page, 'long.md');
  await page.getByTestId('view-modes').getByRole('button', { name: 'Split' }).click();
  const preview = page.getByTestId('preview');
  await expect(preview.locator('h2')).toHaveCount(60);

  // Scroll the editor down: the section at the top of the preview is the one at the top of the editor.
  const scroller = page.locator('.pane .cm-scroller');
  await scroller.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
  const atTop = await scroller.evaluate((el) => {
    const top = el.getBoundingClientRect().top;
    const heads = [...el.querySelectorAll('.cm-line')].filter((l) => l.textContent?.startsWith('## Section '));
    const h = heads.find((l) => l.getBoundingClientRect().bottom > top);
    return Number(h?.textContent?.replace('## Section ', '') ?? 0);
  });
  expect(atTop).toBeGreaterThan(10);
  await expect
    .poll(() =>
      preview.evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        const h = [...el.querySelectorAll('h2')].find((x) => x.getBoundingClientRect().bottom > top + 4);
        return h?.textContent ?? '';
      }),
    )
    .toMatch(new RegExp(`^Section (${atTop - 1}|${atTop}|${atTop + 1})$`));
});

test('Preview: an Obsidian callout shows titled and coloured by its kind; its task box ticks the right line', async ({ page, serve }) => {
  const NOTE = '# 周报\n\n> [!warning] 注意\n> 先备份\n> - [ ] 备份数据库\n\n末行\n';
  writeNote(serve, '周报.md', NOTE);
  await openApp(page, serve);
  await openNote(page, '周报.md');
  await page.getByTestId('view-modes').locator('[data-mode="split"]').click();
  const pv = page.getByTestId('preview');
  const callout = pv.locator('.md-callout-warning');
  await expect(callout.locator('.md-callout-title')).toHaveText('注意');
  await expect(callout).toContainText('先备份');
  await expect(pv).not.toContainText('[!warning]');
  const color = await callout.evaluate((el) => getComputedStyle(el).borderLeftColor);
  const warn = await callout.evaluate((el) => getComputedStyle(el).getPropertyValue('--warn').trim());
  expect(warn).not.toBe('');
  expect(color).not.toBe(await pv.evaluate((el) => getComputedStyle(el).color));
  await callout.locator('input.md-task').click();
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '周报.md')).toBe(NOTE.replace('- [ ] 备份', '- [x] 备份'));
});
