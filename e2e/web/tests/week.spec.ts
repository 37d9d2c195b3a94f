// A week of daily writing in Chinese (issue 24's "done when"), as a person
// does it in `mnote serve`, the interface in Simplified Chinese, notes in
// live preview (the default), Chinese typed through a pinyin IME:
//   Day 1  Alt+D makes today's note from Templates/Daily.md; a heading, a
//          bullet list (Enter continues, Tab nests, Enter on an empty item
//          ends it), a numbered list that renumbers, a task box ticked.
//   Day 2  缓存设计.md links [[实验记录]]: shown apart and listed as
//          unresolved, a click creates it; two lines with one line break.
//   Day 3  a pasted screenshot and a dropped PDF: saved under attachments/,
//          linked, the image shown inline.
//   Day 4  F2 → Ctrl+A → 缓存方案 → Enter: still a note, the links updated
//          (and undone, and updated again); a note dragged into a folder.
//   Day 5  Quick Open by pinyin, every hit of a note in the search, the
//          #周报 tag, the outline, the word count, find and replace.
// After each day the files on disk say what was typed (autosave, no
// Ctrl+S), and Esc closes each overlay opened on the way. Each day is a
// test of its own, starting from the folder the day before left.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, expect, test, type Page, type Serve } from './fixtures';
import { imeType } from './ime-helpers';
import { editorText, indexed, openNote, readNote, tab, tree, treeRow, writeNote } from './workspace-helpers';

test.use({ viewport: { width: 1440, height: 900 } });

// ---------------------------------------------------------------------------
// The zh-CN catalogue (frontend/messages/<area>/zh-CN.json): the labels the
// steps look for.

const ZH: Record<string, unknown> = {};
for (const area of fs.readdirSync(path.join(ROOT, 'frontend/messages'))) {
  const f = path.join(ROOT, 'frontend/messages', area, 'zh-CN.json');
  if (fs.existsSync(f)) Object.assign(ZH, JSON.parse(fs.readFileSync(f, 'utf8')));
}
function zh(key: string, params: Record<string, string | number> = {}): string {
  const v = ZH[key];
  if (typeof v !== 'string') throw new Error(`no plain message ${key} in the zh-CN catalogue`);
  return v.replace(/\{(\w+)\}/g, (_, p: string) => String(params[p] ?? `{${p}}`));
}

/** Opens the app in Chinese (the person's saved choice) and waits for its agents. */
async function openZh(page: Page, serve: Serve): Promise<void> {
  await page.addInitScript(() => localStorage.setItem('mnote.locale', 'zh-CN'));
  await page.goto(await serve.url());
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(page.locator('aside.sidebar')).toBeVisible();
  await expect(page.locator('.sidebar button.agent .name')).not.toHaveText(zh('app_loading_agents'));
}

const line = (page: Page, text: string) => editorText(page).locator('.cm-line', { hasText: text });
const cursorLine = (page: Page) => page.locator('.pane .cm-activeLine');
const saved = (page: Page) => expect(page.getByTestId('save-state')).toHaveText(zh('editor_status_saved'));

function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

// What each day leaves in the folder (the next day starts from it).
const DAY1_TEMPLATE = '# {{date:YYYY年M月D日}} 日记\n\n';
const DESIGN = '# 缓存设计\n\n先做 [[实验记录]]。\n\n命中率很高\n第二行没有空格\n';
const LOG = '# 实验记录\n\n第一次实验。\n';

// ---------------------------------------------------------------------------

test('day 1: Alt+D makes today’s note from the template; lists continue, nest, end and renumber; a task box ticks', async ({ page, serve }) => {
  writeNote(serve, 'Templates/Daily.md', DAY1_TEMPLATE);
  writeNote(serve, '说明.md', '# 说明\n');
  await openZh(page, serve);
  const date = today();
  const d = new Date();
  const daily = `Daily/${date}.md`;

  await page.keyboard.press('Alt+d');
  await expect(tab(page, daily)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('view-modes').locator('[data-mode="live"]')).toHaveAttribute('aria-pressed', 'true');
  const title = `${d.getFullYear()}年${d.getMonth() + 1}月${d.getDate()}日 日记`;
  await expect.poll(() => readNote(serve, daily)).toBe(`# ${title}\n\n`);

  // The Backlinks panel, answered, does not go back to "finding links…" at each save while the person writes.
  const backlinks = page.getByTestId('backlinks');
  await expect(backlinks).toContainText(zh('notes_backlinks_none'));
  let asked = 0;
  page.on('request', (r) => void (r.postData()?.includes('"notes.backlinks"') && asked++));
  await backlinks.evaluate((el, loading) => {
    const w = window as unknown as { __blFlicker: number };
    w.__blFlicker = 0;
    new MutationObserver(() => void (el.textContent?.includes(loading) && w.__blFlicker++)).observe(el, { subtree: true, childList: true, characterData: true });
  }, zh('notes_backlinks_loading'));

  await editorText(page).click();
  await page.keyboard.press('Control+End');
  const k = page.keyboard;
  await k.type('## ');
  await imeType(page, 'jintian', '今天');
  await k.press('Enter');
  // A bullet list: Enter continues it, Tab nests, Enter on an empty item ends it.
  await k.type('- ');
  await imeType(page, 'maicai', '买菜');
  await k.press('Enter');
  await imeType(page, 'xiefangan', '写方案', 'Enter'); // the Enter that picks the candidate is the IME's
  await k.press('Enter');
  await k.press('Tab');
  await imeType(page, 'caogao', '草稿');
  await k.press('Enter');
  await k.press('Enter'); // empty nested item: back one level
  await imeType(page, 'kaihui', '开会');
  await k.press('Enter');
  await k.press('Enter'); // empty item: the list ends, a blank line after it (else 晚上 would be part of 开会 in the preview)
  await imeType(page, 'wanshang', '晚上');
  await k.press('Enter');
  // A numbered list; an item put in the middle renumbers the ones after it.
  await k.type('1. ');
  await imeType(page, 'jia', '甲');
  await k.press('Enter');
  await imeType(page, 'bing', '丙');
  await k.press('Enter');
  await imeType(page, 'ding', '丁');
  await line(page, '甲').click();
  await k.press('End');
  await k.press('Enter');
  await imeType(page, 'yi', '乙');
  await k.press('Control+End');
  await k.press('Enter');
  await k.press('Enter');
  // A task list; its box ticks on a click.
  await k.type('- [ ] ');
  await imeType(page, 'xiezhoubao', '写周报');
  await k.press('Enter');
  await imeType(page, 'huiyuanjian', '回邮件');
  await line(page, '晚上').click();
  const boxes = editorText(page).locator('input.cm-lp-task');
  await expect(boxes).toHaveCount(2);
  await boxes.first().click();
  await expect(boxes.first()).toBeChecked();
  await expect(boxes.nth(1)).not.toBeChecked();

  const want = `# ${title}\n\n## 今天\n- 买菜\n- 写方案\n  - 草稿\n- 开会\n\n晚上\n1. 甲\n2. 乙\n3. 丙\n4. 丁\n\n- [x] 写周报\n- [ ] 回邮件`;
  await expect.poll(() => readNote(serve, daily), { timeout: 5_000 }).toBe(want);
  await saved(page);
  await expect.poll(() => asked).toBeGreaterThan(0); // refreshed after a save
  await expect(backlinks).toContainText(zh('notes_backlinks_none'));
  expect(await page.evaluate(() => (window as unknown as { __blFlicker: number }).__blFlicker)).toBe(0);
  // Live preview: bullets and numbers rendered off the cursor's line.
  await expect(line(page, '草稿')).toHaveText('• 草稿');
  await expect(editorText(page).locator('.cm-lp-h1')).toHaveText(title);

  // The preview agrees: 晚上 is a paragraph of its own, not part of the item above.
  await page.getByTestId('view-modes').locator('[data-mode="preview"]').click();
  const preview = page.getByTestId('preview');
  await expect(preview.locator('li', { hasText: '开会' })).toHaveJSProperty('innerText', '开会');
  await expect(preview.locator('p', { hasText: '晚上' })).toHaveCount(1);
  await expect(preview.locator('ol > li')).toHaveText(['甲', '乙', '丙', '丁']);
  await page.getByTestId('view-modes').locator('[data-mode="live"]').click();

  // Alt+D again (from another note): the same note, nothing lost.
  await openNote(page, '说明.md');
  await page.keyboard.press('Alt+d');
  await expect(tab(page, daily)).toHaveAttribute('aria-selected', 'true');
  expect(readNote(serve, daily)).toBe(want);
});

test('day 2: an unresolved [[实验记录]] looks apart, is listed, and a click creates it; a line break shows, with no space', async ({ page, serve }) => {
  writeNote(serve, '说明.md', '# 说明\n');
  await openZh(page, serve);
  // A new note from the tree's New note button, named in Chinese.
  await page.getByRole('button', { name: zh('notes_new_note') }).first().click();
  const name = page.getByRole('textbox', { name: zh('notes_new_note_label') });
  await expect(name).toBeFocused();
  await imeType(page, 'huancunsheji', '缓存设计', 'Enter');
  await name.press('Enter');
  await expect(tab(page, '缓存设计.md')).toHaveAttribute('aria-selected', 'true');
  await editorText(page).click();
  const k = page.keyboard;
  await k.type('# ');
  await imeType(page, 'huancunsheji', '缓存设计');
  await k.press('Enter');
  await k.press('Enter');
  await imeType(page, 'xianzuo', '先做');
  await k.type(' [[');
  await imeType(page, 'shiyanjilu', '实验记录');
  // The completion offers no such note: Escape closes it, ]] closes the link.
  await k.press('Escape');
  await k.type(']]');
  await imeType(page, 'ju', '。');
  await k.press('Enter');
  await k.press('Enter');
  await imeType(page, 'minzhonglvhengao', '命中率很高');
  await k.press('Enter');
  await imeType(page, 'dierhang', '第二行没有空格');
  await expect.poll(() => readNote(serve, '缓存设计.md')).toBe(DESIGN.trimEnd());

  // Unresolved: marked apart in the live preview, and listed.
  const mark = editorText(page).locator('.cm-link-unresolved');
  await expect(mark).toHaveCount(1);
  await expect(mark).toContainText('实验记录');
  await expect(mark).toHaveCSS('text-decoration-style', 'dashed');
  await expect(page.getByTestId('note-unresolved-link')).toContainText('[[实验记录]]');
  const all = page.getByTestId('unresolved-links');
  await all.getByRole('button', { name: zh('notes_ln_unresolved') }).click();
  await expect(all.getByTestId('unresolved-link')).toHaveCount(1);
  await expect(all.getByTestId('unresolved-link')).toContainText('[[实验记录]]');

  // A click creates it (asked first; Esc asks no more and makes nothing), beside the linking note.
  const unresolved = editorText(page).locator('.cm-lp-link', { hasText: '实验记录' });
  await unresolved.click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText(zh('notes_create_title', { name: '实验记录' }));
  await page.keyboard.press('Escape');
  await expect(ask).toBeHidden();
  expect(fs.existsSync(path.join(serve.workspace, '实验记录.md'))).toBe(false);
  await unresolved.click();
  await ask.getByRole('button', { name: zh('notes_create'), exact: true }).click();
  await expect(tab(page, '实验记录.md')).toHaveAttribute('aria-selected', 'true');
  await expect(all.getByTestId('unresolved-link')).toHaveCount(0);
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await k.type('# ');
  await imeType(page, 'shiyanjilu', '实验记录');
  await k.press('Enter');
  await k.press('Enter');
  await imeType(page, 'diyici', '第一次实验。');
  await k.press('Enter');
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe(LOG);
  // Back in 缓存设计: the link resolves now, and the backlink shows on 实验记录.
  await expect(page.getByTestId('backlink')).toHaveCount(1);
  await tab(page, '缓存设计.md').click();
  await expect(editorText(page).locator('.cm-link-unresolved')).toHaveCount(0);

  // The preview: one line break is a line break, and no space between the Chinese lines.
  await page.getByTestId('view-modes').locator('[data-mode="preview"]').click();
  const para = page.getByTestId('preview').locator('p', { hasText: '命中率' });
  await expect(para).toHaveJSProperty('innerText', '命中率很高\n第二行没有空格');
  await page.getByTestId('view-modes').locator('[data-mode="live"]').click();
  expect(readNote(serve, '缓存设计.md')).toBe(DESIGN.trimEnd());
});

/** Pastes into the editor as Ctrl+V would: a ClipboardEvent with the files. */
async function pasteFile(page: Page, file: { name: string; type: string; base64: string }) {
  await editorText(page).evaluate((el, f) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, file);
}

/** Drops a file on the editor's last line, as a drag from the file manager would. */
async function dropFile(page: Page, file: { name: string; type: string; text: string }) {
  const last = editorText(page).locator('.cm-line').last();
  const box = (await last.boundingBox())!;
  await last.evaluate(
    (el, { file, x, y }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([file.text], file.name, { type: file.type }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, clientX: x, clientY: y, bubbles: true, cancelable: true }));
    },
    { file, x: box.x + box.width - 2, y: box.y + box.height / 2 },
  );
}

test('day 3: a pasted screenshot goes to attachments/ and shows inline; a dropped PDF is linked', async ({ page, serve }) => {
  writeNote(serve, '缓存设计.md', DESIGN);
  writeNote(serve, '实验记录.md', LOG);
  await openZh(page, serve);
  await openNote(page, '实验记录.md');
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await imeType(page, 'jietu', '截图：');
  await page.keyboard.press('Enter');
  await pasteFile(page, { name: 'image.png', type: 'image/png', base64: PNG });
  const files = () => {
    try {
      return fs.readdirSync(path.join(serve.workspace, 'attachments')).sort();
    } catch {
      return [];
    }
  };
  await expect.poll(files).toEqual([expect.stringMatching(new RegExp(`^${zh('editor_wr_pasted_image', { time: '\\d{8}-\\d{6}' })}\\.png$`))]);
  const png = files()[0];
  expect(fs.readFileSync(path.join(serve.workspace, 'attachments', png)).toString('base64')).toBe(PNG);
  const link = `![](attachments/${png.replaceAll(' ', '%20')})`;
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe(`${LOG}截图：\n${link}`);

  // Dropped: a PDF, linked on a line of its own.
  await page.keyboard.press('Enter');
  await dropFile(page, { name: '实验报告.pdf', type: 'application/pdf', text: '%PDF-1.4\n%%EOF\n' });
  await expect.poll(files).toContain('实验报告.pdf');
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe(`${LOG}截图：\n${link}\n[实验报告.pdf](attachments/实验报告.pdf)`);

  // Off the cursor's line the image shows, loaded from the folder.
  await line(page, '第一次实验').click();
  const img = editorText(page).locator('img.cm-lp-img');
  await expect(img).toHaveCount(1);
  await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(1);
  await saved(page);
});

// A linked PDF (a real one: binary, not text) opens in the desktop's PDF
// viewer, as a click on it in a file manager would; the editor does not
// open it as text. (Obsidian shows it in a viewer of its own.)
test.describe('on a desktop', () => {
  // A desktop session for the launcher (serve runs under none in CI);
  // the launcher itself is the fixture's stand-in.
  test.use({ serveEnv: { DISPLAY: process.env.DISPLAY || ':mnote-e2e' } });
  test('day 3: a click on the linked PDF opens it in the desktop’s viewer', async ({ page, serve }) => {
    writeNote(serve, '实验记录.md', `${LOG}[实验报告.pdf](attachments/实验报告.pdf)\n\n末行\n`);
    fs.mkdirSync(path.join(serve.workspace, 'attachments'), { recursive: true });
    fs.writeFileSync(path.join(serve.workspace, 'attachments/实验报告.pdf'), Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n%%EOF\n', 'latin1'));
    await openZh(page, serve);
    await openNote(page, '实验记录.md');
    await line(page, '末行').click();
    await editorText(page).locator('.cm-lp-link', { hasText: '实验报告' }).click();
    await expect(page.locator('.toast', { hasText: zh('editor_opened_in_app', { name: '实验报告.pdf' }) })).toBeVisible();
    await expect.poll(() => serve.opened()).toEqual([path.join(serve.workspace, 'attachments', '实验报告.pdf')]);
    await expect(tab(page, 'attachments/实验报告.pdf')).toHaveCount(0); // not as text
  });
});

test('day 4: F2 → Ctrl+A → 缓存方案 keeps the note and updates its links (Undo too); a note dragged into a folder', async ({ page, serve }) => {
  writeNote(serve, '缓存设计.md', DESIGN);
  writeNote(serve, '实验记录.md', '# 实验记录\n\n见 [[缓存设计]] 与 [方案](缓存设计.md)。\n');
  writeNote(serve, '归档/旧.md', '# 旧\n');
  await openZh(page, serve);
  await indexed(serve, '方案');
  await openNote(page, '缓存设计.md');

  await treeRow(page, '缓存设计.md').click();
  await page.keyboard.press('F2');
  const field = page.getByRole('textbox', { name: zh('notes_rename_label') });
  await expect(field).toBeFocused();
  await page.keyboard.press('Control+a');
  await imeType(page, 'huancunfangan', '缓存方案', 'Enter');
  await expect(field).toHaveValue('缓存方案');
  await page.keyboard.press('Enter');
  await expect(treeRow(page, '缓存方案.md')).toBeVisible();
  await expect(tab(page, '缓存方案.md')).toHaveAttribute('aria-selected', 'true');
  expect(fs.existsSync(path.join(serve.workspace, '缓存方案.md'))).toBe(true);
  expect(fs.existsSync(path.join(serve.workspace, '缓存方案'))).toBe(false);
  const offer = page.getByTestId('link-offer');
  await expect(offer).toContainText(zh('notes_offer', { links: 2, notes: 1 }));
  await offer.getByRole('button', { name: zh('notes_update'), exact: true }).click();
  const renamed = '# 实验记录\n\n见 [[缓存方案]] 与 [方案](缓存方案.md)。\n';
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe(renamed);
  await page.getByRole('button', { name: zh('common_undo'), exact: true }).click();
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe('# 实验记录\n\n见 [[缓存设计]] 与 [方案](缓存设计.md)。\n');
  // Undo puts the links back (they point nowhere now: listed as unresolved); Ctrl+Z in the open note is its own.
  await openNote(page, '实验记录.md');
  await expect(editorText(page).locator('.cm-link-unresolved')).toHaveCount(2);

  // Renamed back and forth again, then updated for good.
  await treeRow(page, '缓存方案.md').click();
  await page.keyboard.press('F2');
  await page.keyboard.press('Control+a');
  await imeType(page, 'huancunsheji', '缓存设计');
  await page.keyboard.press('Enter');
  await expect(treeRow(page, '缓存设计.md')).toBeVisible();
  await expect(editorText(page).locator('.cm-link-unresolved')).toHaveCount(0);
  await treeRow(page, '缓存设计.md').click();
  await page.keyboard.press('F2');
  await page.keyboard.press('Control+a');
  await imeType(page, 'huancunfangan', '缓存方案');
  await page.keyboard.press('Enter');
  await expect(offer).toContainText(zh('notes_offer', { links: 2, notes: 1 }));
  await offer.getByRole('button', { name: zh('notes_update'), exact: true }).click();
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe(renamed);
  await tab(page, '实验记录.md').click();
  await expect(line(page, '见')).toHaveText('见 缓存方案 与 方案。');
  await expect(page.getByTestId('note-unresolved-link')).toHaveCount(0);

  // Esc leaves a rename as it was.
  await treeRow(page, '缓存方案.md').click();
  await page.keyboard.press('F2');
  await expect(field).toBeFocused();
  await page.keyboard.type('x');
  await page.keyboard.press('Escape');
  await expect(field).toBeHidden();
  await expect(treeRow(page, '缓存方案.md')).toBeVisible();

  // Dragged into a folder: the links follow.
  // ([[缓存方案]] still names it: only the path link changes.)
  await treeRow(page, '缓存方案.md').dragTo(treeRow(page, '归档'));
  await expect(treeRow(page, '归档/缓存方案.md')).toBeVisible();
  await expect(tab(page, '归档/缓存方案.md')).toBeVisible(); // its open tab follows
  await expect(offer).toContainText(zh('notes_offer', { links: 1, notes: 1 }));
  await offer.getByRole('button', { name: zh('notes_update'), exact: true }).click();
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe('# 实验记录\n\n见 [[缓存方案]] 与 [方案](归档/缓存方案.md)。\n');
  expect(readNote(serve, '归档/缓存方案.md')).toBe(DESIGN);
  await expect(tree(page)).toBeVisible();
});

const WEEKLY = '# 周报\n\n本周 #周报 写了缓存方案。\n\n## 进展\n\n缓存命中率提高。\n缓存淘汰用 LRU。\n\n## 计划\n\n下周继续缓存实验。\n';

test('day 5: Quick Open by pinyin, every hit grouped, the #周报 tag, the outline, the word count, find and replace', async ({ page, serve }) => {
  writeNote(serve, '缓存方案.md', DESIGN.replace('缓存设计', '缓存方案'));
  writeNote(serve, '实验记录.md', '# 实验记录\n\n见 [[缓存方案]]。\n');
  writeNote(serve, '周报.md', WEEKLY);
  writeNote(serve, '环境.md', '# 环境\n');
  await openZh(page, serve);
  await indexed(serve, '缓存', 3);

  // Quick Open: by pinyin initials and by full pinyin; Esc closes it.
  await page.keyboard.press('Control+p');
  const dialog = page.getByRole('dialog', { name: zh('notes_fd_qo_title') });
  const input = dialog.getByRole('combobox');
  await expect(input).toBeFocused();
  await input.fill('hcfa');
  await expect(dialog.getByRole('option').first()).toContainText('缓存方案');
  await input.fill('huancun');
  await expect(dialog.getByRole('option').first()).toContainText('缓存方案');
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.keyboard.press('Control+p');
  await input.fill('hcfa');
  await expect(dialog.getByRole('option').first()).toContainText('缓存方案');
  await page.keyboard.press('Enter');
  await expect(tab(page, '缓存方案.md')).toHaveAttribute('aria-selected', 'true');

  // The search: every hit of a note, grouped under it.
  await page.keyboard.press('Control+Shift+F');
  const q = page.getByTestId('note-search-input');
  await expect(q).toBeFocused();
  await imeType(page, 'huancun', '缓存');
  const weekly = page.getByTestId('note-search-group').filter({ hasText: '周报' });
  await expect(weekly.getByTestId('note-search-count')).toHaveText('4 处');
  await weekly.getByTestId('note-search-note').click();
  await expect(weekly.getByTestId('note-search-hit')).toHaveCount(4);
  await weekly.getByTestId('note-search-hit').nth(2).click();
  await expect(tab(page, '周报.md')).toHaveAttribute('aria-selected', 'true');
  await expect(cursorLine(page)).toContainText('缓存淘汰用 LRU。');

  // The tags panel lists #周报; written in another note, it counts two; a click searches it.
  const tags = page.getByTestId('tags-panel').getByTestId('tag');
  await expect(tags).toHaveText(['#周报1']);
  await page.keyboard.press('Control+p');
  await input.fill('syjl');
  await expect(dialog.getByRole('option').first()).toContainText('实验记录');
  await page.keyboard.press('Enter');
  await expect(tab(page, '实验记录.md')).toHaveAttribute('aria-selected', 'true');
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await imeType(page, 'guidang', '归档到');
  await page.keyboard.type(' #');
  await imeType(page, 'zhou', '周');
  await expect(page.locator('.cm-tooltip-autocomplete li')).toHaveText([/^#周报/]);
  await imeType(page, 'bao', '报');
  await page.keyboard.type(' ');
  await expect.poll(() => readNote(serve, '实验记录.md')).toBe('# 实验记录\n\n见 [[缓存方案]]。\n归档到 #周报 ');
  await expect(tags).toHaveText(['#周报2']);
  await tags.first().click();
  await expect(page.getByTestId('note-search-input')).toHaveValue('tag:周报');
  await expect(page.getByTestId('note-search-group')).toHaveCount(2);
  await page.getByTestId('note-search-group').filter({ has: page.locator('[title="周报.md"]') }).getByTestId('note-search-hit').click();
  await expect(tab(page, '周报.md')).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');

  // The outline: a click jumps to the heading.
  await page.getByTestId('outline-toggle').click();
  const outline = page.getByTestId('outline');
  await expect(outline.getByRole('button')).toHaveText(['周报', '进展', '计划']);
  await outline.getByRole('button', { name: '计划' }).click();
  await expect(cursorLine(page)).toContainText('计划');
  await expect(outline.getByRole('button', { name: '计划' })).toHaveAttribute('aria-current', 'location');

  // The word count: each Chinese character is a word.
  const text = WEEKLY.replace(/\n/g, '');
  const han = [...text].filter((c) => /\p{Script=Han}/u.test(c)).length;
  await expect(page.getByTestId('word-count')).toContainText(zh('editor_wr_words', { count: han + 1 }));

  // Find (Ctrl+F) and replace (Ctrl+H) in the note; Esc closes the panel.
  await editorText(page).click();
  await page.keyboard.press('Control+f');
  const find = page.locator('.cm-search input[name="search"]');
  await expect(find).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.locator('.cm-search')).toHaveCount(0);
  await page.keyboard.press('Control+h');
  const replace = page.locator('.cm-search input[name="replace"]');
  await expect(replace).toBeFocused();
  await find.fill('缓存');
  await replace.fill('缓冲');
  await page.locator('.cm-search button[name="replaceAll"]').click();
  await expect(editorText(page)).not.toContainText('缓存');
  await page.keyboard.press('Escape');
  await expect(page.locator('.cm-search')).toHaveCount(0);
  await expect.poll(() => readNote(serve, '周报.md')).toBe(WEEKLY.replaceAll('缓存', '缓冲'));

  // Esc closes the command palette, the template picker and the shortcuts sheet too.
  for (const [key, id] of [
    ['Control+Shift+P', 'command-palette'],
    ['Alt+t', 'template-picker'],
    ['F1', 'shortcuts-sheet'],
  ] as const) {
    await editorText(page).click();
    await page.keyboard.press(key);
    await expect(page.getByTestId(id)).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId(id)).toBeHidden();
  }
  expect(readNote(serve, '周报.md')).toBe(WEEKLY.replaceAll('缓存', '缓冲'));
});
