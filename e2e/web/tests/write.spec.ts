// Issue 24, writing in the editor: files pasted and dropped into a note are
// saved in the attachments folder, linked at the cursor and shown in the
// preview; a URL pasted over a selection makes a link and HTML from a
// browser becomes Markdown. A two-line Chinese paragraph previews as two
// lines (joined with no space when strict line breaks are on); the outline
// jumps to a heading and follows the scroll; the status bar counts Chinese
// words; Ctrl+H opens find and replace (regular expressions on Chinese).
//
// The clipboard and drag data are the page's own events (ClipboardEvent and
// DragEvent carrying a DataTransfer with a File), as the browser makes them
// for a paste (Ctrl+V) or a drop.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, openApp, test, type Page } from './fixtures';
import { openSettings } from './settings-helpers';
import { editorText, openNote, readNote, showSource, writeNote } from './workspace-helpers';

test.use({ viewport: { width: 1600, height: 900 } });

// A real 1×1 PNG, so the preview's image has a size once it loads.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Pastes into the editor as Ctrl+V would: a ClipboardEvent with the given data (and files). */
async function paste(page: Page, data: Record<string, string>, files: { name: string; type: string; base64: string }[] = []) {
  await page.locator('.pane .cm-content').evaluate(
    (el, { data, files }) => {
      const dt = new DataTransfer();
      for (const [k, v] of Object.entries(data)) dt.setData(k, v);
      for (const f of files) {
        const bin = atob(f.base64);
        const b = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) b[i] = bin.charCodeAt(i);
        dt.items.add(new File([b], f.name, { type: f.type }));
      }
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { data, files },
  );
}

/** Drops a file on the editor's last line, as a drag from the file manager would. */
async function drop(page: Page, file: { name: string; type: string; text: string }) {
  const line = page.locator('.pane .cm-content .cm-line').last();
  const box = (await line.boundingBox())!;
  await line.evaluate(
    (el, { file, x, y }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([file.text], file.name, { type: file.type }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    },
    { file, x: box.x + box.width - 2, y: box.y + box.height / 2 },
  );
}

function attachments(ws: string): string[] {
  try {
    return fs.readdirSync(path.join(ws, 'attachments')).sort();
  } catch {
    return [];
  }
}

test('Paste and drop: files go to attachments/ and are linked and shown; a URL over a selection links it; HTML becomes Markdown', async ({ page, serve }) => {
  writeNote(serve, '日记/周一.md', '# 周一\n\n');
  await openApp(page, serve);
  await openNote(page, '日记/周一.md');
  await showSource(page);
  await page.locator('.pane .status .auto input[type="checkbox"]').uncheck();
  await editorText(page).click();
  await page.keyboard.press('Control+End');

  // A pasted screenshot: saved as attachments/Pasted image <time>.png, linked relative to the note.
  await paste(page, {}, [{ name: 'image.png', type: 'image/png', base64: PNG }]);
  await expect.poll(() => attachments(serve.workspace)).toEqual([expect.stringMatching(/^Pasted image \d{8}-\d{6}\.png$/)]);
  const png = attachments(serve.workspace)[0];
  expect(fs.readFileSync(path.join(serve.workspace, 'attachments', png)).toString('base64')).toBe(PNG);
  await expect(editorText(page)).toContainText(`![](../attachments/${png.replaceAll(' ', '%20')})`);

  // A dropped file keeps its name, de-duplicated when taken.
  fs.writeFileSync(path.join(serve.workspace, 'attachments', '实验 数据.csv'), 'old\n');
  await page.keyboard.press('Enter');
  await drop(page, { name: '实验 数据.csv', type: 'text/csv', text: 'a,b\n1,2\n' });
  await expect.poll(() => attachments(serve.workspace)).toContain('实验 数据 1.csv');
  expect(fs.readFileSync(path.join(serve.workspace, 'attachments', '实验 数据.csv'), 'utf8')).toBe('old\n');
  await expect(editorText(page)).toContainText('[实验 数据 1.csv](../attachments/实验%20数据%201.csv)');

  // A URL pasted over selected words makes a link of them.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('see the design');
  for (let i = 0; i < 'design'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await paste(page, { 'text/plain': 'https://example.com/cache' });
  await expect(editorText(page)).toContainText('see the [design](https://example.com/cache)');

  // HTML copied from a browser becomes Markdown; styled plain text stays as it is.
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await paste(page, {
    'text/html': '<meta charset="utf-8"><h2>缓存策略</h2><p><strong>LRU</strong> 见 <a href="https://example.com/lru">文档</a></p><ul><li>命中</li><li>淘汰</li></ul>',
    'text/plain': '缓存策略 LRU 见文档 命中 淘汰',
  });
  await expect(editorText(page)).toContainText('## 缓存策略');
  await expect(editorText(page)).toContainText('**LRU** 见 [文档](https://example.com/lru)');
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await paste(page, { 'text/html': '<span style="color:#c00">const x = 1</span>', 'text/plain': 'const x = 1' });
  await expect(editorText(page)).toContainText('const x = 1');

  await page.keyboard.press('Control+s');
  await expect(page.getByTestId('save-state')).toHaveText('Saved');
  const saved = readNote(serve, '日记/周一.md') ?? '';
  expect(saved).toContain(`![](../attachments/${png.replaceAll(' ', '%20')})`);
  expect(saved).toMatch(/## 缓存策略\n\n\*\*LRU\*\* 见 \[文档\]\(https:\/\/example\.com\/lru\)\n\n-\s+命中\n-\s+淘汰/);

  // The preview shows the pasted image, loaded from the notes folder.
  await page.getByTestId('view-modes').getByRole('button', { name: 'Preview' }).click();
  const img = page.getByTestId('preview').locator('img.md-local');
  await expect(img).toHaveAttribute('src', /^blob:/);
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(1);
});

test('Writing Chinese: line breaks in the preview, the outline, the word count and Ctrl+H replace', async ({ page, serve }) => {
  const filler = Array.from({ length: 60 }, (_, i) => `第${i + 1}行。`).join('\n\n');
  writeNote(serve, '缓存.md', `# 缓存设计\n\n命中率。\n第一次\n\n## 实验\n\n${filler}\n\n## 结论\n\n结论文字\n`);
  await openApp(page, serve);
  await openNote(page, '缓存.md');
  await page.locator('.pane .status .auto input[type="checkbox"]').uncheck();

  // One line break inside a paragraph: two lines, no space between them.
  const modes = page.getByTestId('view-modes');
  await modes.getByRole('button', { name: 'Preview' }).click();
  const para = page.getByTestId('preview').locator('p').first();
  await expect(para).toHaveJSProperty('innerText', '命中率。\n第一次');
  // Strict Markdown line breaks: one line, still no space.
  const settings = await openSettings(page);
  await settings.getByTestId('strict-breaks').check();
  await page.keyboard.press('Escape');
  await expect(para).toHaveJSProperty('innerText', '命中率。第一次');
  await modes.getByRole('button', { name: 'Source' }).click();

  // The word count: each Chinese character a word (punctuation not), characters with spaces.
  const count = page.getByTestId('word-count');
  const text = (readNote(serve, '缓存.md') ?? '').replace(/\n/g, '');
  const han = [...text].filter((c) => /\p{Script=Han}/u.test(c)).length;
  const digits = text.match(/\d+/g)?.length ?? 0;
  await expect(count).toHaveText(`${han + digits} words · ${[...text].length} characters`);
  // The selection's count: 命中率。 is three words, four characters.
  await editorText(page).click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Shift+End');
  await expect(count).toHaveText('Selected: 3 words, 4 characters');

  // The outline: the headings as a tree; a click jumps to one, and the section on screen is marked.
  await page.getByTestId('outline-toggle').click();
  const outline = page.getByTestId('outline');
  await expect(outline.getByRole('button')).toHaveText(['缓存设计', '实验', '结论']);
  await expect(outline.getByRole('button', { name: '缓存设计' })).toHaveAttribute('aria-current', 'location');
  await outline.getByRole('button', { name: '结论' }).click();
  await expect(outline.getByRole('button', { name: '结论' })).toHaveAttribute('aria-current', 'location');
  const heading = page.locator('.pane .cm-line', { hasText: '## 结论' });
  await expect(heading).toBeInViewport();
  await expect(page.locator('.pane .cm-line', { hasText: '# 缓存设计' })).not.toBeInViewport();
  // Scrolling back up marks the section at the top.
  await page.locator('.pane .cm-scroller').evaluate((s) => (s.scrollTop = 0));
  await expect(outline.getByRole('button', { name: '缓存设计' })).toHaveAttribute('aria-current', 'location');

  // Ctrl+H: the replace field, then a regular expression over Chinese text.
  await editorText(page).click();
  await page.keyboard.press('Control+h');
  const replaceField = page.locator('.cm-search input[name="replace"]');
  await expect(replaceField).toBeFocused();
  await page.locator('.cm-search input[name="search"]').fill('第(\\d+)行');
  await page.locator('.cm-search input[name="re"]').check();
  await replaceField.fill('第$1段');
  await page.locator('.cm-search button[name="replaceAll"]').click();
  await expect(editorText(page)).toContainText('第1段。第2段。');
  await expect(editorText(page)).not.toContainText('第1行。');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '缓存.md')).toContain('第1段。\n\n第2段。');
  expect(readNote(serve, '缓存.md')).toContain('第60段。\n\n## 结论');
  expect(readNote(serve, '缓存.md')).not.toMatch(/第\d+行/);
});

test('Formatting keys: Ctrl+B bolds a Chinese selection in the editor (the tree stays), Ctrl+Enter makes a task, ==highlight== shows marked; the palette and the sheet list them', async ({
  page,
  serve,
}) => {
  writeNote(serve, '周报.md', '# 周报\n\n命中率很高\n买菜\n\n末行\n');
  await openApp(page, serve);
  await openNote(page, '周报.md');
  const tree = page.getByTestId('file-tree');
  await expect(tree).toBeVisible();
  const line = (t: string) => editorText(page).locator('.cm-line', { hasText: t });

  // Select "很高" with the keyboard and bold it.
  await line('命中率很高').click();
  await page.keyboard.press('End');
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Control+b');
  await expect(tree).toBeVisible(); // Ctrl+B in the editor is bold, not the tree
  // "命中率" highlighted (a keyboard's Shift+h is "H").
  await page.keyboard.press('Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.keyboard.press('Control+Shift+H');
  await line('买菜').click();
  await page.keyboard.press('Control+Enter');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '周报.md')).toBe('# 周报\n\n==命中率==**很高**\n- [ ] 买菜\n\n末行\n');
  // Ticked by the same key; undone by Ctrl+Z.
  await page.keyboard.press('Control+Enter');
  await expect(line('买菜')).toContainText('买菜');
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '周报.md')).toContain('- [ ] 买菜');

  // Live preview draws the highlight marked, its == and ** hidden off the cursor's line.
  await line('末行').click();
  await expect(line('命中率')).toHaveText('命中率很高');
  const look = (t: RegExp) =>
    line('命中率')
      .locator('span', { hasText: t })
      .last()
      .evaluate((el) => ({ bg: getComputedStyle(el).backgroundColor, weight: Number(getComputedStyle(el).fontWeight) }));
  expect((await look(/^命中率$/)).bg).not.toBe('rgba(0, 0, 0, 0)');
  expect((await look(/^很高$/)).weight).toBeGreaterThanOrEqual(700);

  // The palette runs them on the open note; the sheet lists their keys.
  await line('末行').click();
  await page.keyboard.press('Shift+Home');
  await page.keyboard.press('Control+Shift+P');
  const palette = page.getByTestId('command-palette');
  await expect(palette.locator('[data-command="editor.format.bold"] kbd')).toHaveText('Ctrl+B');
  await page.keyboard.type('italic');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'editor.format.italic');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '周报.md')).toContain('\n*末行*\n');
  await tree.click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('F1');
  const sheet = page.getByTestId('shortcuts-sheet');
  await expect(sheet.locator('[data-command="editor.format.task"] kbd')).toHaveText('Ctrl+Enter');
  await expect(sheet.locator('[data-command="editor.format.highlight"] kbd')).toHaveText('Ctrl+Shift+H');
});

test('Folding: a heading’s arrow folds its section up to the next heading of its level, in live preview and source; the note is unchanged', async ({ page, serve }) => {
  const NOTE = '# 周报\n\n## 实验\n\n第一次结果\n\n### 细节\n\n数据\n\n## 结论\n\n结语\n';
  writeNote(serve, '周报.md', NOTE);
  await openApp(page, serve);
  await openNote(page, '周报.md');
  const text = editorText(page);
  await text.locator('.cm-line', { hasText: '结语' }).click();
  // The arrows show when the pointer is over the gutter.
  const gutter = page.locator('.pane .cm-foldGutter');
  await gutter.hover();
  const arrows = page.locator('.pane .cm-fold-marker').filter({ visible: true });
  await expect(arrows).toHaveCount(4); // the four headings
  await arrows.nth(1).click(); // "## 实验"
  await expect(text).not.toContainText('第一次结果');
  await expect(text).not.toContainText('数据');
  await expect(text).toContainText('结语');
  const closed = page.locator('.pane .cm-fold-marker.closed').filter({ visible: true });
  await expect(closed).toHaveCount(1);
  await page.mouse.move(700, 600);
  await expect(closed).toHaveCSS('opacity', '1'); // a folded one stays shown
  await page.screenshot({ path: test.info().outputPath('folded.png') });
  // Unfolded by its arrow (the gutter: the cursor stays where it is); the note was never changed.
  await closed.click();
  await expect(text).toContainText('第一次结果');
  await expect(page.locator('.pane .cm-fold-marker.closed').filter({ visible: true })).toHaveCount(0);
  // In source mode, by the keyboard (Ctrl+Shift+[ folds where the cursor is).
  await showSource(page);
  await text.locator('.cm-line', { hasText: '## 结论' }).click();
  await page.keyboard.press('Control+Shift+BracketLeft');
  await expect(text).not.toContainText('结语');
  await page.keyboard.press('Control+Shift+BracketRight');
  await expect(text).toContainText('结语');
  expect(readNote(serve, '周报.md')).toBe(NOTE);
});

test('Drag a note from the tree into the open note: [[its name]] where it is dropped, the note not moved', async ({ page, serve }) => {
  writeNote(serve, '周报.md', '# 周报\n\n见：\n\n末行\n');
  writeNote(serve, '笔记/实验记录.md', '# 实验记录\n');
  await openApp(page, serve);
  await openNote(page, '周报.md');
  await showSource(page);
  await page.getByTestId('file-tree').locator('[data-path="笔记"]').click();
  const target = editorText(page).locator('.cm-line', { hasText: '见：' });
  const box = (await target.boundingBox())!;
  await page.getByTestId('file-tree').locator('[data-path="笔记/实验记录.md"]').dragTo(target, { targetPosition: { x: box.width - 2, y: box.height / 2 } });
  await expect(target).toHaveText('见：[[实验记录]]');
  await expect(page.getByTestId('file-tree').locator('[data-path="笔记/实验记录.md"]')).toBeVisible(); // not moved
  await page.keyboard.press('Control+s');
  await expect.poll(() => readNote(serve, '周报.md')).toBe('# 周报\n\n见：[[实验记录]]\n\n末行\n');
});
