// Chinese typing (issue 16): while a pinyin IME composes, Enter, Esc, Tab,
// Space and the arrows are the IME's (keydown with isComposing, keyCode
// 229). They must not send the message, pick an @ item, open a search hit,
// commit or cancel a rename, submit or close a form, or stop a turn. After
// the composition ends the committed Chinese is in the field and a real
// Enter does the action. And notes with Chinese names work everywhere
// (tree, Quick Open, note search, @-mentions).
//
// The composition is Chromium's own (CDP Input.imeSetComposition: the
// compositionstart/update events and the marked text, as an IME makes
// them); keys during it go as an IME sends them (Input.dispatchKeyEvent
// with windowsVirtualKeyCode 229: the page sees key "Enter", keyCode 229,
// isComposing true), or as Playwright presses them (keyCode 27, isComposing
// true: the flag alone must be enough). Input.insertText commits (the
// compositionend event). A log in the page proves the keys reached it
// while composing, so a test cannot pass because nothing was pressed.
import { composer, expect, openApp, pickTestAgent, sendSteps, test, thread, waitTurnEnd, type Page, type Serve } from './fixtures';
import { Ime } from './ime-helpers';
import { editorText, openNote, readNote, showSource, tab, treeRow, writeNote } from './workspace-helpers';

const userMessages = (page: Page) => thread(page).getByTestId('user-message');
const answers = (page: Page) => thread(page).getByTestId('assistant-message');
const filesMenu = (page: Page) => page.getByRole('listbox', { name: 'Files' });

/** Waits until the notes index finds query. */
async function indexed(serve: Serve, query: string): Promise<void> {
  await expect.poll(async () => (await serve.call<unknown[]>('notes.search', { query })).length, { timeout: 15_000 }).toBeGreaterThan(0);
}

test('composer: Enter, Esc and the @ picker wait for the composition; then Enter sends 缓存 and picks 中文笔记.md', async ({ page, serve }) => {
  writeNote(serve, '中文笔记.md', '# 中文笔记\n');
  writeNote(serve, '笔记/会议记录.md', '# 会议记录\n缓存命中率\n');
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await pickTestAgent(page);
  const box = composer(page);

  // Send: Enter while composing goes to the IME.
  await box.click();
  await box.fill('问题：');
  await ime.compose('huancun');
  await ime.keys('Enter', ' ', 'ArrowDown', 'Escape');
  await page.keyboard.press('Escape'); // as Playwright presses it: keyCode 27, isComposing still set
  expect(await ime.seen()).toEqual(['Enter/229', ' /229', 'ArrowDown/229', 'Escape/229', 'Escape/27']);
  await page.waitForTimeout(300); // a send would have started a turn by now
  await expect(userMessages(page)).toHaveCount(0);
  await ime.commit('缓存');
  await expect(box).toHaveValue('问题：缓存');
  await box.press('Enter');
  await expect(userMessages(page)).toHaveText(['问题：缓存']);
  await waitTurnEnd(page);
  await expect(answers(page).last()).toContainText('echo: 问题：缓存');

  // The @ picker: open on the candidate the IME shows, but Enter/Tab/arrows are the IME's.
  await box.click();
  await box.fill('看 @');
  await ime.compose('中文');
  const menu = filesMenu(page);
  await expect(menu.getByRole('option').first()).toContainText('中文笔记.md');
  await ime.keys('ArrowDown', 'Tab', 'Enter');
  expect(await ime.seen()).toEqual(['ArrowDown/229', 'Tab/229', 'Enter/229']);
  await page.waitForTimeout(200);
  await expect(box).toHaveValue('看 @中文');
  await expect(menu).toBeVisible();
  await ime.commit('中文');
  await expect(box).toHaveValue('看 @中文');
  await expect(menu.getByRole('option').first()).toContainText('中文笔记.md');
  await box.press('Enter');
  await expect(box).toHaveValue('看 @中文笔记.md ');

  // A note in a Chinese folder, @-mentioned the same way.
  await box.pressSequentially('和 @');
  await ime.compose('会议');
  await expect(menu.getByRole('option').first()).toContainText('会议记录.md');
  await ime.keys('Enter');
  await page.waitForTimeout(200);
  await expect(box).toHaveValue('看 @中文笔记.md 和 @会议');
  await ime.commit('会议');
  await expect(menu.getByRole('option').first()).toContainText('会议记录.md');
  await box.press('Enter');
  await expect(box).toHaveValue('看 @中文笔记.md 和 @笔记/会议记录.md ');
  await box.press('Enter');
  await waitTurnEnd(page);
  await expect(answers(page).last()).toContainText('echo: 看 @中文笔记.md 和 @笔记/会议记录.md');
});

test('a running turn: Esc while composing does not stop it; the sessions search and the session rename wait for the composition', async ({
  page,
  serve,
}) => {
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ message: 'busy' }, { sleepMs: 2500 }, { message: ' finished' }]);
  const box = composer(page);
  await box.click();
  await ime.compose('ting');
  await ime.keys('Escape');
  await page.keyboard.press('Escape');
  expect(await ime.seen()).toEqual(['Escape/229', 'Escape/27']);
  await ime.commit('停');
  await expect(box).toHaveValue('停');
  await waitTurnEnd(page);
  await expect(answers(page).last()).toHaveText('busy finished'); // not cancelled
  await box.fill('');

  // Sessions search: the IME's ArrowDown does not leave the field for the
  // list, its Enter runs nothing. (Not its Esc here: without an OS IME to
  // take it, Chromium's own Esc of a type=search field clears the text.)
  const search = page.getByTestId('search-input');
  await search.click();
  await ime.compose('busy');
  await ime.keys('ArrowDown', 'Enter');
  expect(await ime.seen()).toEqual(['ArrowDown/229', 'Enter/229']);
  await expect(search).toBeFocused();
  await expect(search).toHaveValue('busy');
  await ime.commit('忙');
  await expect(search).toHaveValue('忙');
  await search.press('Escape'); // a real Esc clears it
  await expect(search).toHaveValue('');
  await search.fill('');
  await search.press('ArrowDown'); // a real ArrowDown goes to the list
  await expect(page.locator('.history button.open').first()).toBeFocused();

  // Session rename: Enter and Esc of the IME neither commit nor cancel.
  const row = page.locator('.history button.open').first();
  await row.dblclick();
  const title = page.getByRole('textbox', { name: 'Session title' });
  await expect(title).toBeVisible();
  await title.fill('');
  await ime.compose('缓存会话');
  await ime.keys('Enter', 'Escape');
  expect(await ime.seen()).toEqual(['Enter/229', 'Escape/229']);
  await expect(title).toBeVisible();
  await ime.commit('缓存会话');
  await expect(title).toHaveValue('缓存会话');
  await title.press('Enter');
  await expect(title).toBeHidden();
  await expect(page.locator('.history button.open').first()).toContainText('缓存会话');
  await expect.poll(async () => (await serve.call<{ title: string }[]>('sessions.list'))[0]?.title).toBe('缓存会话');
});

test('notes: a Chinese file name in the tree, Quick Open and note search; IME keys open nothing; the rename commits to 新名字.md', async ({
  page,
  serve,
}) => {
  writeNote(serve, '笔记/会议记录.md', '# 会议记录\n\n今天讨论了缓存命中率。\n');
  writeNote(serve, 'old.md', '# old\n');
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await indexed(serve, '缓存命中率');

  // The tree shows it and it opens.
  await openNote(page, '笔记/会议记录.md');
  await expect(editorText(page)).toContainText('今天讨论了缓存命中率。');
  await page.locator('.pane [role="tab"]').first().focus();
  await page.keyboard.press('Delete'); // closes the tab (the editor pane's own key)
  await expect(tab(page, '笔记/会议记录.md')).toHaveCount(0);

  // Quick Open: the IME's Enter opens nothing, its Esc does not close the dialog.
  await page.keyboard.press('Control+p');
  const dialog = page.getByRole('dialog', { name: 'Quick Open' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('combobox').click();
  await ime.compose('会议');
  await expect(dialog.getByRole('option').first()).toContainText('会议记录');
  await ime.keys('Enter', 'ArrowDown', 'Escape');
  await page.keyboard.press('Escape');
  expect(await ime.seen()).toEqual(['Enter/229', 'ArrowDown/229', 'Escape/229', 'Escape/27']);
  await page.waitForTimeout(200);
  await expect(dialog).toBeVisible();
  await expect(tab(page, '笔记/会议记录.md')).toHaveCount(0);
  await ime.commit('会议');
  await expect(dialog.getByRole('combobox')).toHaveValue('会议');
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(tab(page, '笔记/会议记录.md')).toHaveAttribute('aria-selected', 'true');
  await tab(page, '笔记/会议记录.md').focus();
  await page.keyboard.press('Delete');
  await expect(tab(page, '笔记/会议记录.md')).toHaveCount(0);

  // Note search finds the note containing 缓存命中率; the IME's Enter and Esc do nothing.
  await page.keyboard.press('Control+Shift+F');
  const input = page.getByTestId('note-search-input');
  await expect(input).toBeFocused();
  await ime.compose('缓存命中率');
  const hit = page.getByTestId('note-search-hit');
  await expect(hit).toHaveCount(1);
  await ime.keys('Enter', 'Escape');
  expect(await ime.seen()).toEqual(['Enter/229', 'Escape/229']);
  await page.waitForTimeout(200);
  await expect(tab(page, '笔记/会议记录.md')).toHaveCount(0);
  await expect(page.getByTestId('note-search')).toBeVisible();
  await ime.commit('缓存命中率');
  await expect(input).toHaveValue('缓存命中率');
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark')).toHaveText('缓存命中率');
  await input.press('Enter');
  await expect(tab(page, '笔记/会议记录.md')).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('.pane .cm-activeLine')).toHaveText('今天讨论了缓存命中率。');
  await page.getByTestId('note-search').getByRole('button', { name: 'Back to the notes (Esc)' }).click();
  await expect(page.getByTestId('note-search')).toBeHidden();

  // Tree rename: the IME's Enter does not commit, its Esc does not cancel.
  await treeRow(page, 'old.md').click();
  await page.keyboard.press('F2');
  const rename = page.getByRole('textbox', { name: 'New name' });
  await expect(rename).toBeVisible();
  await rename.fill('');
  await ime.compose('xinmingzi');
  await ime.keys('Enter', 'Escape');
  expect(await ime.seen()).toEqual(['Enter/229', 'Escape/229']);
  await page.waitForTimeout(200);
  await expect(rename).toBeVisible();
  expect(readNote(serve, 'old.md')).toBe('# old\n');
  await ime.commit('新名字');
  await page.keyboard.type('.md');
  await expect(rename).toHaveValue('新名字.md');
  await rename.press('Enter');
  await expect(treeRow(page, '新名字.md')).toBeVisible();
  await expect.poll(() => readNote(serve, '新名字.md')).toBe('# old\n');
  expect(readNote(serve, 'old.md')).toBeNull();
});

test('the editor: the IME Enter does not accept the [[ completion; the committed name then completes', async ({ page, serve }) => {
  writeNote(serve, '笔记/会议记录.md', '# 会议记录\n');
  writeNote(serve, 'home.md', '# Home\n');
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await indexed(serve, '会议记录');
  await openNote(page, 'home.md');
  await showSource(page);
  await editorText(page).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('见 [[');
  await ime.compose('会议');
  await ime.keys('Enter');
  expect(await ime.seen()).toEqual(['Enter/229']);
  await page.waitForTimeout(300);
  await expect(editorText(page)).toHaveText('# Home见 [[会议');
  await ime.commit('会议');
  const option = page.locator('.cm-tooltip-autocomplete [role="option"]', { hasText: '会议记录' });
  await expect(option).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(editorText(page)).toContainText('见 [[会议记录');
  await expect(editorText(page)).not.toContainText('会议会议');
});

test('elicitation form: the IME Enter does not submit, its Esc does not dismiss; a real Enter sends 上海', async ({ page, serve }) => {
  const ime = await Ime.attach(page);
  await openApp(page, serve);
  await pickTestAgent(page);
  const form = page.getByTestId('elicitation-form');
  await sendSteps(page, [
    {
      elicit: {
        message: '去哪里？',
        requestedSchema: { type: 'object', properties: { city: { type: 'string', title: 'City', minLength: 2 } }, required: ['city'] },
      },
    },
  ]);
  await expect(form).toBeVisible();
  await form.getByLabel('City').click();
  await ime.compose('shanghai');
  await ime.keys('Enter', 'Escape');
  await page.keyboard.press('Escape');
  expect(await ime.seen()).toEqual(['Enter/229', 'Escape/229', 'Escape/27']);
  await page.waitForTimeout(300);
  await expect(form).toBeVisible();
  await expect(answers(page)).toHaveCount(0);
  await ime.commit('上海');
  await expect(form.getByLabel('City')).toHaveValue('上海');
  await form.getByLabel('City').press('Enter');
  await expect(form).toBeHidden();
  await expect(answers(page)).toHaveText(['elicit: accept {"city":"上海"}']);
  await waitTurnEnd(page);
});
