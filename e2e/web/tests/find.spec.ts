// Finding notes (issue 24): every hit of a note in the search, grouped and
// expandable; Quick Open by pinyin, and with nothing typed the notes
// opened last first; the tags panel; the daily note (Alt+D)
// from a template, and a template inserted at the cursor (Alt+T). Against `mnote
// serve --workspace DIR` and its real notes index; Chinese typed through an
// IME composition (CDP, as ime.spec.ts does).
import * as path from 'node:path';
import { expect, openApp, OUT, test, type Page } from './fixtures';
import { imeType } from './ime-helpers';
import { editorText, indexed, openNote, readNote, showSource, tab, treeRow, writeNote } from './workspace-helpers';

function cursorLine(page: Page) {
  return page.locator('.pane .cm-activeLine');
}

const DESIGN = '# 缓存设计\n\n读多写少时先查缓存。\n\n## 失效\n缓存失效要小心。\n无关的一行\n缓存穿透：查不到的键也缓存空值。\n';

test('search shows every hit of a note; expanding it and clicking the 3rd hit opens the note at that line', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存设计.md', DESIGN);
  writeNote(serve, 'other.md', '# 其他\n这里只提到缓存一次。\n');
  await openApp(page, serve);
  await indexed(serve, '缓存', 2);
  // The folder is shown (its search is offered once the app knows it), as a person sees before pressing keys.
  await expect(treeRow(page, 'other.md')).toBeVisible();

  await page.keyboard.press('Control+Shift+F');
  const input = page.getByTestId('note-search-input');
  await expect(input).toBeFocused();
  await imeType(page, 'huancun', '缓存');
  await expect(input).toHaveValue('缓存');
  const design = page.getByTestId('note-search-group').filter({ hasText: '缓存设计' });
  // Folded: the note, its hit count and its first hit.
  await expect(design.getByTestId('note-search-count')).toHaveText('4 hits');
  await expect(design.getByTestId('note-search-hit')).toHaveCount(1);
  await expect(page.getByTestId('note-search-status')).toContainText('5 results in 2 notes');
  await design.getByTestId('note-search-note').click();
  const hits = design.getByTestId('note-search-hit');
  await expect(hits).toHaveCount(4);
  await expect(hits.locator('.line')).toHaveText(['1', '3', '6', '8']);
  await expect(hits.nth(2).locator('mark')).toHaveText('缓存');
  await page.screenshot({ path: path.join(OUT, 'find-search.png') });
  await hits.nth(2).click();
  await expect(tab(page, '设计/缓存设计.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toHaveText('缓存失效要小心。');
});

test('Quick Open finds 缓存设计.md by pinyin initials; arrows highlight; Enter opens it', async ({ page, serve }) => {
  writeNote(serve, '设计/缓存设计.md', DESIGN);
  writeNote(serve, '银行卡.md', '# 银行卡\n');
  writeNote(serve, 'hc.md', '# 话题\n');
  writeNote(serve, 'notes/plan.md', '---\ntitle: 旅行计划\n---\n正文\n');
  await openApp(page, serve);
  await indexed(serve, '正文');
  // The welcome card lists it.
  await expect(page.locator('.empty .keys')).toContainText('open a note');

  await page.keyboard.press('Control+p');
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  await expect(dialog).toContainText('pinyin');
  const input = dialog.getByRole('combobox');
  await input.fill('hcsj');
  const options = dialog.getByRole('option');
  await expect(options.first()).toContainText('缓存设计');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  // A polyphone's other reading (行: hang), and a title (旅行计划 → lxjh).
  await input.fill('yinhang');
  await expect(options.first()).toContainText('银行卡');
  await input.fill('lxjh');
  await expect(options.first()).toContainText('plan');
  await expect(options.first()).toContainText('旅行计划');
  // Arrows move the highlight.
  await input.fill('hc');
  await expect(options).toHaveCount(2);
  await expect(options.nth(0)).toContainText('hc');
  await input.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(options.nth(1)).toHaveClass(/active/);
  await expect(options.nth(0)).toHaveAttribute('aria-selected', 'false');
  await page.screenshot({ path: path.join(OUT, 'find-quick-open.png') });
  await input.press('ArrowUp');
  await input.fill('hcsj');
  await expect(options.first()).toContainText('缓存设计');
  await input.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(tab(page, '设计/缓存设计.md')).toHaveAttribute('aria-selected', 'true');
});

test('Quick Open with nothing typed lists the notes opened last first, most recent first', async ({ page, serve }) => {
  for (const n of ['alpha', 'bravo', 'charlie', 'delta']) writeNote(serve, `${n}.md`, `# ${n}\n`);
  await openApp(page, serve);
  await openNote(page, 'charlie.md');
  await openNote(page, 'alpha.md');
  await page.keyboard.press('Control+p');
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  const names = dialog.getByRole('option').locator('.name');
  await expect(names).toHaveText(['alpha', 'charlie', 'bravo', 'delta']);
  // Opened from Quick Open itself: first next time.
  await dialog.getByRole('combobox').fill('delta');
  await dialog.getByRole('combobox').press('Enter');
  await expect(tab(page, 'delta.md')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Control+p');
  await expect(names).toHaveText(['delta', 'alpha', 'charlie', 'bravo']);
});

test('the tags panel lists tags with counts; a click searches the notes with that tag', async ({ page, serve }) => {
  writeNote(serve, 'a.md', '---\ntags: [读书, 技术]\n---\n# A\n正文\n');
  writeNote(serve, 'b.md', '# B\n今天 #读书 了。\n`#代码` 不算，网址 https://x.org/#frag 也不算\n');
  writeNote(serve, 'c.md', '# C\n没有标签\n');
  await openApp(page, serve);
  await indexed(serve, '今天');
  const panel = page.getByTestId('tags-panel');
  const tags = panel.getByTestId('tag');
  await expect(tags).toHaveText(['#读书2', '#技术1']);
  await tags.first().click();
  await expect(page.getByTestId('note-search-input')).toHaveValue('tag:读书');
  const groups = page.getByTestId('note-search-group');
  await expect(groups).toHaveCount(2);
  // By path: a.md (its front matter), b.md (the #tag in its text).
  await expect(groups.nth(1).getByTestId('note-search-hit').locator('mark')).toHaveText('#读书');
  // Searched by hand too: #NAME with a word.
  await page.getByTestId('note-search-input').fill('#读书 正文');
  await expect(groups).toHaveCount(1);
  await expect(groups).toContainText('a');
});

test('in the editor a tag is marked and a click shows its notes; # typed with an IME completes from the folder’s tags', async ({ page, serve }) => {
  writeNote(serve, 'b.md', '# B\n今天 #读书 了。\n');
  writeNote(serve, 'c.md', '# C\n正文\n');
  await openApp(page, serve);
  await indexed(serve, '今天');
  await openNote(page, 'b.md');
  const mark = page.locator('.pane .cm-content .cm-tag');
  await expect(mark).toHaveText('#读书');
  await mark.click();
  await expect(page.getByTestId('note-search-input')).toHaveValue('tag:读书');
  await page.keyboard.press('Escape'); // clears the query
  await page.keyboard.press('Escape'); // back to the notes
  await openNote(page, 'c.md');
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('想法 #');
  await imeType(page, 'du', '读');
  const option = page.locator('.cm-tooltip-autocomplete li');
  await expect(option).toHaveText([/^#读书/]);
  await page.waitForTimeout(150); // CodeMirror takes no key in a completion's first 75 ms (interactionDelay)
  await page.keyboard.press('Enter');
  await expect(page.locator('.pane .cm-activeLine')).toHaveText('想法 #读书 ');
});

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

test('Alt+D makes today’s note from the daily template and opens it again; a template goes in at the cursor', async ({ page, serve }) => {
  writeNote(serve, 'Templates/Daily.md', '# {{title}}\n\n## 待办\n- \n');
  writeNote(serve, 'Templates/会议.md', '## 会议 {{date}}\n参会：\n');
  writeNote(serve, 'notes.md', '第一行\n第二行\n');
  await openApp(page, serve);
  await indexed(serve, '参会');
  const date = today();
  const daily = `Daily/${date}.md`;

  await page.keyboard.press('Alt+d');
  await expect(tab(page, daily)).toHaveAttribute('aria-selected', 'true');
  await expect.poll(() => readNote(serve, daily)).toBe(`# ${date}\n\n## 待办\n- \n`);
  await expect(editorText(page)).toContainText('待办');
  // Written in, then Alt+D again: the same note, not a new one.
  await openNote(page, 'notes.md');
  await page.keyboard.press('Alt+d');
  await expect(tab(page, daily)).toHaveAttribute('aria-selected', 'true');
  expect(readNote(serve, daily)).toBe(`# ${date}\n\n## 待办\n- \n`);

  // Insert a template at the cursor of notes.md (end of its first line).
  await openNote(page, 'notes.md');
  await showSource(page);
  await page.locator('.pane .cm-line').first().click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Alt+t');
  const picker = page.getByTestId('template-picker');
  await expect(picker.getByTestId('template-item')).toHaveText([/Daily/, /会议/]);
  await picker.getByRole('combobox').fill('huiyi');
  await expect(picker.getByTestId('template-item')).toHaveCount(1);
  await page.keyboard.press('Enter');
  await expect(picker).toBeHidden();
  await expect(editorText(page)).toContainText(`## 会议 ${date}`);
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, 'notes.md')).toBe(`第一行\n## 会议 ${date}\n参会：\n\n第二行\n`);
});
