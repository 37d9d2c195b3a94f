// Notes and links that cannot get lost (issue 24): a rename keeps the
// note's extension (F2 → Ctrl+A → a Chinese name typed through the IME
// used to make "缓存实验" without .md: the note left the tree, its
// backlinks and the link update), another extension typed is asked about,
// a tab and the editor rename through the same flow; a note or an
// attachment dragged into a folder offers the link update, applied, and
// Undo puts the links back; an unresolved link is shown apart (source
// editor, preview), created on click beside the linking note, and listed
// (the note's in the Backlinks panel, the folder's in the notes panel).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { expect, openApp, OUT, test } from './fixtures';
import { imeType } from './ime-helpers';
import { editorText, indexed, openNote, readNote, showSource, tab, tree, treeRow, writeNote } from './workspace-helpers';

const CACHE = '# 缓存\n\n## 淘汰\nLRU\n';

test('F2 → Ctrl+A → a new name keeps .md; the tab and the editor rename too; another extension is asked about', async ({ page, serve }) => {
  writeNote(serve, '缓存.md', CACHE);
  writeNote(serve, 'journal/day.md', '# Day\n\n今天读了 [[缓存#淘汰]]。\n');
  await openApp(page, serve);
  await indexed(serve, '今天');

  // The reproduction: select the note, F2, Ctrl+A, type "缓存实验", Enter.
  await treeRow(page, '缓存.md').click();
  await page.keyboard.press('F2');
  const field = page.getByRole('textbox', { name: 'New name' });
  await expect(field).toBeFocused();
  // The name is selected without its extension.
  expect(await field.evaluate((el: HTMLInputElement) => el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0))).toBe('缓存');
  await page.keyboard.press('Control+a');
  await imeType(page, 'huancunshiyan', '缓存实验', 'Enter'); // the Enter that picks the candidate must not commit the rename
  await expect(field).toHaveValue('缓存实验');
  await page.keyboard.press('Enter');

  await expect(treeRow(page, '缓存实验.md')).toBeVisible();
  expect(existsSync(path.join(serve.workspace, '缓存实验.md'))).toBe(true);
  expect(existsSync(path.join(serve.workspace, '缓存实验'))).toBe(false);
  const offer = page.getByTestId('link-offer');
  await expect(offer).toContainText('Update 1 link in 1 note?');
  await offer.getByRole('button', { name: 'Update' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n\n今天读了 [[缓存实验#淘汰]]。\n');
  await openNote(page, '缓存实验.md');
  await expect(page.getByTestId('backlink')).toHaveCount(1);

  // Another kind of file typed: asked; "Keep .md" keeps it a note.
  await treeRow(page, '缓存实验.md').click();
  await page.keyboard.press('F2');
  await field.fill('实验.txt');
  await field.press('Enter');
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Change 缓存实验.md to a .txt file?');
  await page.screenshot({ path: path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'notes-rename-ask.png') });
  await ask.getByRole('button', { name: 'Keep .md' }).click();
  await expect(treeRow(page, '实验.md')).toBeVisible();
  expect(existsSync(path.join(serve.workspace, '实验.md'))).toBe(true);
  await expect(offer).toContainText('Update 1 link in 1 note?');
  await offer.getByRole('button', { name: 'Update' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n\n今天读了 [[实验#淘汰]]。\n');

  // A double-click on the tab renames in the tree, through the same flow.
  await expect(tab(page, '实验.md')).toBeVisible();
  await tab(page, '实验.md').dblclick();
  await expect(field).toBeFocused();
  await page.keyboard.type('实验二');
  await page.keyboard.press('Enter');
  await expect(tab(page, '实验二.md')).toBeVisible();
  await expect(offer).toContainText('Update 1 link in 1 note?');
  await offer.getByRole('button', { name: 'Not now' }).click();

  // F2 in the editor does the same.
  await editorText(page).click();
  await page.keyboard.press('F2');
  await expect(field).toBeFocused();
  await expect(field).toHaveValue('实验二.md');
  await page.keyboard.press('Escape');
  await expect(field).toBeHidden();
});

test('a note or an attachment dragged into a folder: the link update is offered, applied, and undone', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  writeNote(serve, '归档/说明.md', '# 说明\n');
  writeNote(serve, 'journal/day.md', '# Day\n[[设计/缓存]] and [c](../设计/缓存.md)\n![图](../attachments/命中率.png)\n');
  writeNote(serve, 'attachments/命中率.png', 'PNG');
  await openApp(page, serve);
  await indexed(serve, 'Day');
  await openNote(page, '设计/缓存.md');
  await expect(treeRow(page, '归档')).toBeVisible();

  await treeRow(page, '设计/缓存.md').dragTo(treeRow(page, '归档'));
  await expect(treeRow(page, '归档/缓存.md')).toBeVisible();
  const offer = page.getByTestId('link-offer');
  await expect(offer).toContainText('Update 2 links in 1 note?');
  await offer.getByRole('button', { name: 'Update' }).click();
  const moved = '# Day\n[[归档/缓存]] and [c](../归档/缓存.md)\n![图](../attachments/命中率.png)\n';
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe(moved);
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n[[设计/缓存]] and [c](../设计/缓存.md)\n![图](../attachments/命中率.png)\n');

  // An attachment (all files shown) dragged into another folder: its image link follows.
  await page.getByLabel('All files').check();
  await expect(treeRow(page, 'attachments')).toBeVisible();
  if ((await treeRow(page, 'attachments').getAttribute('aria-expanded')) !== 'true') await treeRow(page, 'attachments').click();
  await treeRow(page, 'attachments/命中率.png').dragTo(treeRow(page, '设计'));
  await expect(treeRow(page, '设计/命中率.png')).toBeVisible();
  await expect(offer).toContainText('Update 1 link in 1 note?');
  await offer.getByRole('button', { name: 'Update' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n[[设计/缓存]] and [c](../设计/缓存.md)\n![图](../设计/命中率.png)\n');
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toContain('![图](../attachments/命中率.png)');
});

test('an unresolved link is shown apart, listed, and created on click beside the linking note', async ({ page, serve }) => {
  writeNote(serve, '缓存设计.md', '# 缓存设计\n');
  writeNote(serve, '日记/周一.md', '# 周一\n读了 [[缓存设计]] 和 [[实验记录]]。\n');
  writeNote(serve, 'other.md', '# Other\nsee [[待写的笔记]]\n');
  await openApp(page, serve);
  await indexed(serve, '读了');
  await openNote(page, '日记/周一.md');
  await showSource(page);

  // The source editor marks it (and only it).
  const mark = page.locator('.pane .cm-link-unresolved');
  await expect(mark).toHaveCount(1);
  await expect(mark).toHaveText('[[实验记录]]');
  await expect(mark).toHaveAttribute('title', 'No such note — Ctrl+click to create');
  await expect(mark).toHaveCSS('text-decoration-style', 'dashed');

  // The Backlinks panel lists the note's unresolved links.
  await expect(page.getByTestId('note-unresolved-link')).toHaveCount(1);
  await expect(page.getByTestId('note-unresolved-link')).toContainText('[[实验记录]]');

  // The notes panel lists every unresolved link of the folder; a click opens the linking note at the line.
  const all = page.getByTestId('unresolved-links');
  await all.getByRole('button', { name: 'Unresolved links' }).click();
  const rows = all.getByTestId('unresolved-link');
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: '周一' })).toContainText('[[实验记录]]');
  await expect(rows.filter({ hasText: 'other' })).toContainText('[[待写的笔记]]');
  await page.screenshot({ path: path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'notes-unresolved.png') });
  await rows.filter({ hasText: 'other' }).click();
  await expect(tab(page, 'other.md')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.pane .cm-activeLine')).toHaveText('see [[待写的笔记]]');

  // The preview shows it apart; a click creates it beside the linking note and opens it.
  await tab(page, '日记/周一.md').click();
  await page.getByTestId('view-modes').locator('[data-mode="preview"]').click();
  const missing = page.getByTestId('preview').locator('a.md-wikilink', { hasText: '实验记录' });
  await expect(missing).toHaveClass(/unresolved/);
  await expect(missing).toHaveAttribute('title', 'No such note — click to create');
  await missing.click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Create “实验记录”?');
  await ask.getByRole('button', { name: 'Create' }).click();
  await expect(tab(page, '日记/实验记录.md')).toHaveAttribute('aria-selected', 'true');
  expect(existsSync(path.join(serve.workspace, '日记/实验记录.md'))).toBe(true);

  // Now it resolves: no mark, and the list keeps only the other one.
  await expect(rows).toHaveCount(1);
  await tab(page, '日记/周一.md').click();
  await page.keyboard.press('Control+Shift+V');
  await expect(editorText(page)).toBeVisible();
  await expect(mark).toHaveCount(0);
  await expect(tree(page)).toBeVisible();
});
