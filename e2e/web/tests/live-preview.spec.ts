// Live preview (issue 24): a note opens rendered — headings, bold, links,
// task boxes, an image, a table, a callout, code — with the Markdown showing
// only on the cursor's line. A task box ticks (saved to disk), a rendered
// [[link]] opens its note on a plain click and one no note answers looks
// apart, Chinese typed through an IME lands once, in place, in a heading and
// a list item (the Enter that commits the composition does not continue the
// list). Lists continue, nest and end with Enter / Tab / Shift+Tab /
// Backspace in both source and live preview, and the file on disk says so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, openApp, test, type Page } from './fixtures';
import { Ime } from './ime-helpers';
import { editorText, openNote, readNote, showSource, tab, writeNote } from './workspace-helpers';

/** A 2×2 PNG (red). */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGO4GewPRAwQCgArqgXtu+mu5gAAAABJRU5ErkJggg==';

const NOTE = [
  '# 缓存设计',
  '',
  'Reasonix 的命中率 **很高**，见 [[其他]] 与 [[不存在的笔记]]，*斜体* 和 `code`。',
  '',
  '- [ ] 买菜',
  '- [x] 做饭',
  '- 普通一项',
  '',
  '| 名称 | 值 |',
  '| --- | --- |',
  '| 甲 | 1 |',
  '',
  '> [!tip] 提示',
  '> 写下来',
  '',
  '```go',
  'func main() {}',
  '```',
  '',
  `![红点](data:image/png;base64,${PNG}) ![本地](../attachments/点.png)`,
  '',
  '末行',
  '',
].join('\n');

const line = (page: Page, text: string) => editorText(page).locator('.cm-line', { hasText: text });

test('live preview: a note shows rendered; boxes tick, links open, Chinese IME typing lands once in a heading and a list item', async ({ page, serve }) => {
  writeNote(serve, '笔记/lp.md', NOTE);
  fs.mkdirSync(path.join(serve.workspace, 'attachments'), { recursive: true });
  fs.writeFileSync(path.join(serve.workspace, 'attachments/点.png'), Buffer.from(PNG, 'base64'));
  writeNote(serve, '笔记/其他.md', '# 其他\n');
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await openNote(page, '笔记/lp.md');
  const modes = page.getByTestId('view-modes');
  await expect(modes.locator('[data-mode="live"]')).toHaveAttribute('aria-pressed', 'true'); // the default
  await line(page, '末行').click();

  // Rendered: no markup off the cursor's line.
  const h1 = editorText(page).locator('.cm-lp-h1');
  await expect(h1).toHaveText('缓存设计');
  await expect(line(page, 'Reasonix')).toHaveText('Reasonix 的命中率 很高，见 其他 与 不存在的笔记，斜体 和 code。');
  await expect(editorText(page).locator('.cm-link-unresolved')).toHaveText(['不存在的笔记']);
  const boxes = editorText(page).locator('input.cm-lp-task');
  await expect(boxes).toHaveCount(2);
  await expect(boxes.nth(1)).toBeChecked();
  await expect(editorText(page).locator('.cm-lp-table th')).toHaveText(['名称', '值']);
  await expect(editorText(page).locator('.cm-lp-callout-tip').first()).toHaveText('提示');
  await expect(editorText(page).locator('.cm-lp-code .hljs-keyword')).toHaveText('func');
  // Images: one inline in the note, one of the notes folder (relative to the note, loaded as the preview loads it).
  const imgs = editorText(page).locator('img.cm-lp-img');
  await expect(imgs).toHaveCount(2);
  await expect.poll(() => imgs.evaluateAll((l) => l.map((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth))).toEqual([2, 2]);
  // On the cursor's line the Markdown shows.
  await h1.click();
  await expect(h1).toHaveText('# 缓存设计');

  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await line(page, '末行').click();
    await page.screenshot({ path: `/tmp/mnote-live-preview-${theme}.png` });
  }
  await page.emulateMedia({ colorScheme: 'light' });

  // A task box ticks its line (unsaved, like typing); Ctrl+S writes it.
  await boxes.first().click();
  await expect(boxes.first()).toBeChecked();
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '笔记/lp.md')).toContain('- [x] 买菜\n');

  // A plain click on a rendered link opens its note.
  await editorText(page).locator('.cm-lp-link', { hasText: '其他' }).click();
  await expect(tab(page, '笔记/其他.md')).toHaveAttribute('aria-selected', 'true');
  await tab(page, '笔记/lp.md').click();

  // Chinese through an IME at the end of the heading: in place, once.
  await h1.click();
  await page.keyboard.press('End');
  await ime.compose('huancun');
  await ime.compose('缓存');
  await expect(h1).toHaveText('# 缓存设计缓存');
  await ime.commit('（草稿）');
  await expect(h1).toHaveText('# 缓存设计（草稿）');

  // And in a list item, on a new item Enter made; the Enter that commits does not make another.
  await line(page, '普通一项').click();
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await ime.compose('xinxiang');
  await ime.keys('Enter');
  expect(await ime.seen()).toEqual(['Enter/229']);
  await ime.commit('新项');
  await page.keyboard.type('！');
  await line(page, '末行').click();
  await page.keyboard.press('Control+s');
  const saved = NOTE.replace('# 缓存设计', '# 缓存设计（草稿）').replace('- [ ] 买菜', '- [x] 买菜').replace('- 普通一项\n', '- 普通一项\n- 新项！\n');
  await expect.poll(() => readNote(serve, '笔记/lp.md')).toBe(saved);
  await expect(line(page, '新项')).toHaveText('• 新项！');
});

/** Writes lists as a person does: Enter continues and ends, Tab nests, Shift+Tab un-nests, Backspace removes a bare marker. */
async function writeLists(page: Page): Promise<void> {
  const k = page.keyboard;
  await k.type('- 一项');
  await k.press('Enter');
  await k.type('二项');
  await k.press('Enter');
  await k.press('Enter'); // an empty item ends the list, a blank line after it
  await k.type('1. 甲');
  await k.press('Enter');
  await k.type('乙');
  await k.press('Tab');
  await expect(editorText(page)).toContainText('1. 乙'); // renumbered as the first of its own list
  await k.press('Shift+Tab');
  await k.press('Enter');
  await k.press('Backspace'); // 3. goes
  await k.press('Backspace');
  await k.type('> 引用');
  await k.press('Enter');
  await k.type('续');
  await k.press('Enter');
  await k.press('Backspace'); // the bare > goes
  await k.type('- [ ] 任务');
  await k.press('Enter');
  await k.type('第二');
}

const LISTS = '- 一项\n- 二项\n\n1. 甲\n2. 乙\n> 引用\n> 续\n- [ ] 任务\n- [ ] 第二';

test('lists: Enter continues and ends them, Tab / Shift+Tab nest, Backspace removes a marker — in source and in live preview', async ({ page, serve }) => {
  writeNote(serve, 'src.md', '');
  writeNote(serve, 'live.md', '');
  await openApp(page, serve);

  await openNote(page, 'live.md');
  await expect(page.getByTestId('view-modes').locator('[data-mode="live"]')).toHaveAttribute('aria-pressed', 'true');
  await editorText(page).click();
  await writeLists(page);
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, 'live.md')).toBe(LISTS);

  await openNote(page, 'src.md');
  await showSource(page);
  await editorText(page).click();
  await writeLists(page);
  await expect(editorText(page)).toContainText('- [ ] 任务');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, 'src.md')).toBe(LISTS);
});
