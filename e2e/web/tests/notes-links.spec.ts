// Search in the notes and links between them (issue 14 §1, §3), against
// `mnote serve --workspace DIR` and its real notes index: a Chinese word
// found and opened at its line, Quick Open's # headings, wikilinks in the
// preview (resolved, and unresolved → create), the backlinks panel, and a
// rename that offers to update the links pointing at the note (+ Undo).
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { expect, openApp, OUT, test, type Page } from './fixtures';
import { editorText, indexed, openNote, readNote, showSource, tab, treeRow, typeAtEnd, writeNote } from './workspace-helpers';

/** Where the screenshots go (out/ by default; MNOTE_E2E_SHOTS: elsewhere, e.g. to keep them from another run's cleanup). */
const SHOTS = process.env.MNOTE_E2E_SHOTS || OUT;

/** The line the editor's cursor is on. */
function cursorLine(page: Page) {
  return page.locator('.pane .cm-activeLine');
}

const CACHE = '# 缓存设计\n\n概述\n\n## 命中率\nReasonix 的缓存命中率很高。\n\n## 淘汰\nLRU\n';

test('searching a Chinese word finds the note; Enter opens it at the line', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  writeNote(serve, 'other.md', '# Other\nnothing here\n');
  await openApp(page, serve);
  await indexed(serve, '很高');
  // The folder is shown (its search is offered once the app knows it), as a person sees before pressing keys.
  await expect(treeRow(page, 'other.md')).toBeVisible();

  await page.keyboard.press('Control+Shift+F');
  const input = page.getByTestId('note-search-input');
  await expect(input).toBeFocused();
  await input.fill('很高');
  const hit = page.getByTestId('note-search-hit');
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('.line')).toHaveText('6');
  await expect(hit.locator('mark')).toHaveText('很高');
  await expect(page.getByTestId('note-search-status')).toContainText('1 result in 1 note');
  await page.screenshot({ path: path.join(SHOTS, 'notes-search.png') });

  await input.press('Enter');
  await expect(tab(page, '设计/缓存.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('Reasonix 的缓存命中率很高。');

  // The folder filter narrows the search.
  await page.getByTestId('open-note-search').click();
  await page.getByTestId('open-note-search').click();
  await page.getByTestId('note-search-folder').fill('elsewhere');
  await expect(page.getByTestId('note-search-status')).toContainText('No note contains');
});

test('Quick Open with # finds a heading and opens the note there', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  await openApp(page, serve);
  await indexed(serve, '淘汰');
  await page.keyboard.press('Control+p');
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  await dialog.getByRole('combobox').fill('#淘汰');
  await expect(dialog.getByRole('option')).toHaveCount(1);
  await expect(dialog.getByRole('option')).toContainText('淘汰');
  await page.keyboard.press('Enter');
  await expect(tab(page, '设计/缓存.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('## 淘汰');
});

test('a wikilink in the preview opens its note; an unresolved one offers to create it', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  writeNote(serve, 'home.md', '# Home\n\nSee [[缓存#命中率|the hit rate]] and [[新想法]].\n');
  await openApp(page, serve);
  await indexed(serve, '命中率', 2);
  await openNote(page, 'home.md');
  await page.keyboard.press('Control+Shift+V');
  const preview = page.getByTestId('preview');
  const good = preview.locator('a.md-wikilink', { hasText: 'the hit rate' });
  const missing = preview.locator('a.md-wikilink', { hasText: '新想法' });
  await expect(missing).toHaveClass(/unresolved/);
  await expect(good).not.toHaveClass(/unresolved/);
  await page.screenshot({ path: path.join(SHOTS, 'notes-preview.png') });

  await good.click();
  await expect(tab(page, '设计/缓存.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('## 命中率');

  await tab(page, 'home.md').click(); // still in preview
  await missing.click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Create “新想法”?');
  await ask.getByRole('button', { name: 'Create' }).click();
  await expect(tab(page, '新想法.md')).toHaveAttribute('aria-selected', 'true');
  expect(existsSync(path.join(serve.workspace, '新想法.md'))).toBe(true);
});

test('the backlinks panel lists a linking note; renaming offers to update the links, with Undo', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  writeNote(serve, 'journal/day.md', '# Day\n\n今天读了 [[缓存#淘汰]]。\n');
  await openApp(page, serve);
  await indexed(serve, '今天');
  await openNote(page, '设计/缓存.md');
  await showSource(page);
  const panel = page.getByTestId('backlinks');
  const link = panel.getByTestId('backlink');
  await expect(link).toHaveCount(1);
  await expect(link).toContainText('day');
  await expect(link).toContainText('今天读了 [[缓存#淘汰]]。');
  await page.screenshot({ path: path.join(SHOTS, 'notes-backlinks.png') });
  await link.click();
  await expect(tab(page, 'journal/day.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('今天读了 [[缓存#淘汰]]。');

  // Rename 缓存.md in the tree: the offer, Update, the linking note (open) follows.
  await treeRow(page, '设计/缓存.md').click();
  await page.keyboard.press('F2');
  const field = page.getByRole('textbox', { name: 'New name' });
  await field.fill('缓存设计.md');
  await field.press('Enter');
  const offer = page.getByTestId('link-offer');
  await expect(offer).toContainText('Update 1 link in 1 note?');
  await page.screenshot({ path: path.join(SHOTS, 'notes-offer.png') });
  await offer.getByRole('button', { name: 'Update' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n\n今天读了 [[缓存设计#淘汰]]。\n');
  await tab(page, 'journal/day.md').click();
  await expect(editorText(page)).toContainText('[[缓存设计#淘汰]]');
  await page.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(() => readNote(serve, 'journal/day.md')).toBe('# Day\n\n今天读了 [[缓存#淘汰]]。\n');
  await expect(editorText(page)).toContainText('[[缓存#淘汰]]');
});

test('the editor completes [[ with note names and # with headings; Ctrl+click follows a link', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存.md', CACHE);
  writeNote(serve, 'home.md', '# Home\n');
  await openApp(page, serve);
  await indexed(serve, '淘汰');
  await openNote(page, 'home.md');
  await showSource(page);
  await typeAtEnd(page, '[[缓');
  const options = page.locator('.cm-tooltip-autocomplete li');
  await expect(options.first()).toContainText('缓存');
  await page.screenshot({ path: path.join(SHOTS, 'notes-complete.png') });
  // A click (Enter right after the list changes is ignored for 75 ms: CodeMirror's interactionDelay).
  await options.first().click();
  await expect(editorText(page)).toContainText('[[缓存]]');
  // Back inside the link, before ]]: # completes the note's headings.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.type('#淘');
  await expect(options.first()).toContainText('淘汰');
  await options.first().click();
  await expect(editorText(page)).toContainText('[[缓存#淘汰]]');

  await editorText(page).getByText('[[缓存#淘汰]]').click({ modifiers: ['Control'] });
  await expect(tab(page, '设计/缓存.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('## 淘汰');
});
