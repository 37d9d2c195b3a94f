// The layout at laptop widths (issue 13): with a note open and a session
// whose header carries a long title, the agent, its status, a mode, a model
// and usage, at 1920, 1280, 1024, 900 and 640 px: no two header elements
// overlap (or leave the header), the chat column is at least 360 px wide
// wherever the window is >= 720 px, from 720 to 1000 px the person picks
// the notes or the chat (issue 24), and below 720 px exactly one pane
// shows, with a switcher that changes it. A Chinese title is cut with an
// ellipsis. Ctrl+K opens a folded sessions list; a folded list stays folded
// after a reload; sending while scrolled up shows the new turn.
// Screenshots: out/layout/ (MNOTE_E2E_SHOTS=DIR: DIR/layout/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  AGENT,
  OUT,
  TESTAGENT,
  expect,
  openApp,
  pickTestAgent,
  send,
  sendSteps,
  test,
  thread,
  waitTurnEnd,
  type Page,
  type Serve,
} from './fixtures';
import { Ime } from './ime-helpers';
import { headerBoxes, overlap } from './layout-helpers';
import { openNote, tab, treeRow, writeNote } from './workspace-helpers';

const SHOTS = path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'layout');
const WIDTHS = [1920, 1280, 1024, 900, 640];
const HEIGHT = 800;
const LONG_TITLE = 'A rather long session title about the prompt cache, its hit ratio and what we measured last week';
const CHINESE_TITLE = '关于缓存命中率的设计讨论与实验记录';

/** Restarts serve with the test agent offering two modes and two models. */
async function withModesAndModels(serve: Serve): Promise<void> {
  const scenario = {
    sessionNewResult: {
      modes: {
        currentModeId: 'code',
        availableModes: [
          { id: 'code', name: 'Code' },
          { id: 'ask', name: 'Ask before edits' },
        ],
      },
      models: {
        currentModelId: 'big',
        availableModels: [
          { modelId: 'big', name: 'Sonnet 4.5 (1M context)' },
          { modelId: 'small', name: 'Haiku' },
        ],
      },
    },
  };
  await serve.stop();
  const config = {
    agent_servers: {
      [AGENT]: { command: TESTAGENT, args: ['--state', path.join(serve.home, 'agent-state'), '--scenario-json', JSON.stringify(scenario)] },
    },
  };
  fs.writeFileSync(path.join(serve.home, 'config.json'), JSON.stringify(config, null, 2));
  await serve.start();
}

/** A session with the given title, usage (context, cost) and the header's mode and model, and a note open. */
async function setUp(page: Page, serve: Serve, title: string): Promise<void> {
  await withModesAndModels(serve);
  writeNote(serve, 'notes/cache.md', '# Cache\n\nThe hit ratio, measured.\n');
  await page.setViewportSize({ width: 1920, height: HEIGHT });
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [
    { title },
    { usage: { used: 153_000, size: 200_000, cost: { amount: 1.2345, currency: 'USD' } } },
    { message: 'Measured: 81% hits.' },
  ]);
  await waitTurnEnd(page);
  await expect(page.locator('.chat .head .title')).toHaveText(title);
  await openNote(page, 'notes/cache.md');
}

/** No two header elements overlap, each lies inside the header, the title keeps some room and the mode and model are reachable. */
async function checkHeader(page: Page, label: string, shotName = ''): Promise<void> {
  const { head, items } = await headerBoxes(page);
  const names = items.map((b) => b.name);
  expect(names, `${label}: header elements`).toEqual(expect.arrayContaining(['title', 'agent', 'session menu']));
  for (const b of items) {
    expect(b.x, `${label}: ${b.name} starts inside the header`).toBeGreaterThanOrEqual(head.x - 0.5);
    expect(b.x + b.w, `${label}: ${b.name} ends inside the header`).toBeLessThanOrEqual(head.x + head.w + 0.5);
  }
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      expect(overlap(items[i], items[j]), `${label}: ${items[i].name} overlaps ${items[j].name}: ${JSON.stringify([items[i], items[j]])}`).toBe(false);
    }
  }
  const title = items.find((b) => b.name === 'title')!;
  expect(title.w, `${label}: the title's width`).toBeGreaterThanOrEqual(60);
  // The agent's name is never cut while the title can give way (issue 24).
  const agentCut = await page.locator('.chat .head .agent-name').evaluate((el) => el.scrollWidth > el.clientWidth + 1);
  expect(agentCut, `${label}: the agent's name is cut`).toBe(false);
  // The title is one line, cut with an ellipsis when too long.
  const style = await page.locator('.chat .head .title').evaluate((el) => {
    const cs = getComputedStyle(el);
    return { textOverflow: cs.textOverflow, whiteSpace: cs.whiteSpace, h: el.getBoundingClientRect().height, lh: parseFloat(cs.lineHeight) };
  });
  expect(style.textOverflow).toBe('ellipsis');
  expect(style.whiteSpace).toBe('nowrap');
  expect(style.h).toBeLessThan(style.lh * 1.5);
  // Mode and model: in the header, or in the popup behind its button.
  const more = page.getByTestId('header-more');
  if (await more.isVisible()) {
    await more.click();
    const popup = page.locator('.chat .head .extras.open');
    await expect(popup).toBeVisible();
    await expect(popup.getByLabel('Mode', { exact: true })).toBeVisible();
    await expect(popup.getByLabel('Model', { exact: true })).toBeVisible();
    await expect(popup.getByTestId('usage')).toBeVisible();
    if (shotName) await shot(page, shotName);
    const r = (await popup.boundingBox())!;
    const vw = page.viewportSize()!.width;
    expect(r.x, `${label}: the popup starts in the window`).toBeGreaterThanOrEqual(0);
    expect(r.x + r.width, `${label}: the popup ends in the window`).toBeLessThanOrEqual(vw);
    await page.keyboard.press('Escape');
    await expect(popup).toBeHidden();
  } else {
    await expect(page.locator('.chat .head').getByLabel('Mode', { exact: true })).toBeVisible();
    await expect(page.locator('.chat .head').getByLabel('Model', { exact: true })).toBeVisible();
    await expect(page.locator('.chat .head').getByTestId('usage')).toBeVisible();
  }
}

const PANES = {
  notes: 'aside.notes.open',
  editor: '.editor-col',
  sessions: 'aside.sidebar',
  chat: 'section.chat',
} as const;

async function visiblePanes(page: Page): Promise<string[]> {
  const shown: string[] = [];
  for (const [name, sel] of Object.entries(PANES)) {
    if (await page.locator(sel).first().isVisible()) shown.push(name);
  }
  return shown;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** Resizes the window and waits until the layout has followed (the header is laid out again). */
async function resize(page: Page, width: number): Promise<void> {
  await page.setViewportSize({ width, height: HEIGHT });
  await expect.poll(() => page.evaluate(() => window.innerWidth)).toBe(width);
  await expect(page.getByTestId('layout')).toHaveClass(width < 720 ? /single/ : /^(?!.*single)/);
  // Two frames: the ResizeObserver behind the header's measure has run.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

for (const [title, tag] of [
  [LONG_TITLE, 'long'],
  [CHINESE_TITLE, 'zh'],
] as const) {
  test(`layout at 1920/1280/1024/900/640 px (${tag} title): header fits, chat >= 360 px, one pane below 720`, async ({ page, serve }) => {
    await setUp(page, serve, title);
    for (const w of WIDTHS) {
      await resize(page, w);
      const label = `${w} px`;
      if (w >= 720 && w < 1000) {
        // Notes or chat, chosen with a two-way switch: the note keeps its room.
        const switcher = page.getByTestId('pane-switcher');
        await expect(switcher.getByRole('tab')).toHaveCount(2);
        await switcher.getByRole('tab', { name: 'Notes', exact: true }).click();
        await expect.poll(() => visiblePanes(page), { message: `${label}: the notes` }).toEqual(['notes', 'editor']);
        const ed = (await page.locator('.editor-col').boundingBox())!;
        expect(ed.width, `${label}: editor width`).toBeGreaterThanOrEqual(600);
        await shot(page, `${tag}-${w}-notes`);
        await switcher.getByRole('tab', { name: 'Chat', exact: true }).click();
        await expect(page.locator('section.chat')).toBeVisible();
        await expect(page.locator('.editor-col')).toBeHidden();
        const chat = (await page.locator('section.chat').boundingBox())!;
        expect(chat.width, `${label}: chat column width`).toBeGreaterThanOrEqual(360);
        await checkHeader(page, label, `${tag}-${w}-menu`);
        await shot(page, `${tag}-${w}`);
      } else if (w >= 720) {
        await expect(page.getByTestId('pane-switcher')).toHaveCount(0);
        // The note and the chat are both on screen, the chat >= 360 px wide.
        await expect(page.locator('.editor-col')).toBeVisible();
        await expect(page.locator('section.chat')).toBeVisible();
        const chat = (await page.locator('section.chat').boundingBox())!;
        expect(chat.width, `${label}: chat column width`).toBeGreaterThanOrEqual(360);
        expect(chat.x + chat.width, `${label}: the chat ends in the window`).toBeLessThanOrEqual(w + 0.5);
        const ed = (await page.locator('.editor-col').boundingBox())!;
        expect(ed.width, `${label}: editor width`).toBeGreaterThanOrEqual(300);
        await checkHeader(page, label, `${tag}-${w}-menu`);
        await shot(page, `${tag}-${w}`);
      } else {
        const switcher = page.getByTestId('pane-switcher');
        await expect(switcher).toBeVisible();
        await expect.poll(() => visiblePanes(page), { message: `${label}: one pane` }).toEqual(['chat']);
        await checkHeader(page, label);
        await shot(page, `${tag}-${w}-chat`);
        for (const [tab, pane] of [
          ['Notes', 'notes'],
          ['Note', 'editor'],
          ['Sessions', 'sessions'],
          ['Chat', 'chat'],
        ] as const) {
          await switcher.getByRole('tab', { name: tab, exact: true }).click();
          await expect(switcher.getByRole('tab', { name: tab, exact: true })).toHaveAttribute('aria-selected', 'true');
          await expect.poll(() => visiblePanes(page), { message: `${label}: only ${pane}` }).toEqual([pane]);
          const box = (await page.locator(PANES[pane]).first().boundingBox())!;
          expect(box.width, `${label}: ${pane} fills the window`).toBeGreaterThanOrEqual(w - 1);
          if (pane !== 'chat') await shot(page, `${tag}-${w}-${pane}`);
        }
      }
    }
    if (tag === 'zh') {
      // A phone-narrow window: the Chinese title is cut, with an ellipsis.
      await resize(page, 360);
      await checkHeader(page, '360 px');
      const t = page.locator('.chat .head .title');
      await expect(t).toHaveAttribute('title', CHINESE_TITLE);
      const cut = await t.evaluate((el) => el.scrollWidth > el.clientWidth);
      expect(cut, 'the title is cut at 360 px').toBe(true);
      await shot(page, `${tag}-360-chat`);
    }
  });
}

test('Ctrl+K opens a folded sessions list; a folded list stays folded after a reload', async ({ page, serve }) => {
  writeNote(serve, 'a.md', '# A\n');
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  await pickTestAgent(page);
  await send(page, 'hello');
  await waitTurnEnd(page);
  await openNote(page, 'a.md');
  // 1280 px with a note: the sessions list is a rail.
  await expect(page.getByRole('complementary', { name: 'Sessions (folded)' })).toBeVisible();
  await expect(page.getByTestId('search-input')).toHaveCount(0);
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('Control+k');
  await expect(page.getByTestId('search-input')).toBeVisible();
  await expect(page.getByTestId('search-input')).toBeFocused();
  const chat = (await page.locator('section.chat').boundingBox())!;
  expect(chat.width).toBeGreaterThanOrEqual(360);
  await page.getByRole('button', { name: 'Fold the sessions list' }).click();
  await expect(page.getByTestId('search-input')).toHaveCount(0);

  // Wide, and the user folds the list: it stays folded, after a reload too.
  await page.setViewportSize({ width: 1920, height: HEIGHT });
  await expect(page.getByTestId('search-input')).toBeVisible();
  await page.getByRole('button', { name: 'Fold the sessions list' }).click();
  await expect(page.getByTestId('search-input')).toHaveCount(0);
  await page.goto(await serve.url());
  await expect(page.getByRole('complementary', { name: 'Sessions (folded)' })).toBeVisible();
  await expect(page.getByTestId('search-input')).toHaveCount(0);
  await page.getByRole('button', { name: 'Show sessions' }).click();
  await expect(page.getByTestId('search-input')).toBeVisible();
});

test('sending while scrolled up brings the new turn into view', async ({ page, serve }) => {
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  await pickTestAgent(page);
  const long = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of a long answer.`).join('\n\n');
  await sendSteps(page, [{ message: long }]);
  await waitTurnEnd(page);
  const scroller = thread(page);
  await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(page.getByRole('button', { name: 'Latest' })).toBeVisible();
  await send(page, 'the next question');
  await waitTurnEnd(page);
  await expect
    .poll(() => scroller.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight), { message: 'distance from the end' })
    .toBeLessThan(64);
  await expect(thread(page).getByText('echo: the next question')).toBeVisible();
});

// ---------------------------------------------------------------------------
// Room to write and a keyboard that reaches everything (issue 24).

const ZH_NOTE = '# 缓存设计\n\n命中率的实验记录。\n';

/** The app at a size, in a locale (a person's saved choice, as locale.spec.ts sets it), the layout shown. */
async function openIn(page: Page, serve: Serve, locale: 'en' | 'zh-CN', width: number, height = HEIGHT): Promise<void> {
  await page.setViewportSize({ width, height });
  await page.evaluate((l) => localStorage.setItem('mnote.locale', l), locale);
  await page.goto(await serve.url());
  await expect(page.locator('html')).toHaveAttribute('lang', locale);
  await expect(page.getByTestId('layout')).toBeVisible();
}

const box = async (page: Page, sel: string) => (await page.locator(sel).first().boundingBox())!;
const SHOTS24 = process.env.MNOTE_E2E_SHOTS ? path.join(process.env.MNOTE_E2E_SHOTS, 'layout24') : '/tmp/mnote-layout24';

async function shot24(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS24, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS24, `${name}.png`) });
}

test('room to write: 600 px for the note beside the chat at 1280, resize kept, collapse, focus mode, notes or chat at 900 (en, zh)', async ({ page, serve }) => {
  writeNote(serve, '缓存设计.md', ZH_NOTE);
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  const figures: Record<string, number> = {};
  for (const locale of ['en', 'zh-CN'] as const) {
    await openIn(page, serve, locale, 1280);
    if (!(await page.locator('.pane [role="tab"]').count())) await openNote(page, '缓存设计.md');
    await expect(page.locator('section.chat')).toBeVisible();
    const ed = await box(page, '.editor-col');
    figures[`editor1280-${locale}`] = Math.round(ed.width);
    expect(ed.width, `${locale}: the editor at 1280 px with the chat open`).toBeGreaterThanOrEqual(600);
    expect((await box(page, 'section.chat')).width, `${locale}: the chat at 1280 px`).toBeGreaterThanOrEqual(360);
    await shot24(page, `1280-${locale}`);
    await page.setViewportSize({ width: 900, height: 700 });
    const switcher = page.getByTestId('pane-switcher');
    await expect(switcher.getByRole('tab')).toHaveCount(2);
    await expect(switcher.getByRole('tab').first()).toHaveAttribute('aria-selected', 'true');
    const ed900 = await box(page, '.editor-col');
    figures[`editor900-${locale}`] = Math.round(ed900.width);
    expect(ed900.width, `${locale}: the editor at 900 px`).toBeGreaterThanOrEqual(600);
    await expect(page.locator('section.chat')).toBeHidden();
    await shot24(page, `900-notes-${locale}`);
    await switcher.getByRole('tab').nth(1).click();
    await expect(page.locator('section.chat')).toBeVisible();
    await expect(page.locator('.editor-col')).toBeHidden();
    await shot24(page, `900-chat-${locale}`);
    await switcher.getByRole('tab').first().click();
    await expect(page.locator('.editor-col')).toBeVisible();
  }
  console.log(`layout24: ${JSON.stringify(figures)}`);

  // Drag the splitter: the editor narrows by what was dragged; kept after a reload.
  await openIn(page, serve, 'en', 1280);
  await openNote(page, '缓存设计.md');
  const before = (await box(page, '.editor-col')).width;
  const sp = await box(page, '.splitter');
  await page.mouse.move(sp.x + sp.width / 2, sp.y + sp.height / 2);
  await page.mouse.down();
  await page.mouse.move(sp.x + sp.width / 2 - 60, sp.y + sp.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => Math.round((await box(page, '.editor-col')).width)).toBe(Math.round(before - 60));
  await page.reload();
  await openNote(page, '缓存设计.md');
  await expect.poll(async () => Math.round((await box(page, '.editor-col')).width)).toBe(Math.round(before - 60));

  // Collapse and expand: the tree (Ctrl+\ from the editor, where Ctrl+B is
  // bold; Ctrl+B elsewhere; its button), the chat (its button, Ctrl+J).
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('Control+\\');
  await expect(page.locator('aside.notes.open')).toHaveCount(0);
  await page.keyboard.press('Control+\\');
  await expect(page.locator('aside.notes.open')).toBeVisible();
  await page.getByTestId('hide-chat').focus();
  await page.keyboard.press('Control+b');
  await expect(page.locator('aside.notes.open')).toHaveCount(0);
  await page.getByRole('button', { name: 'Show notes', exact: false }).first().click();
  await expect(page.locator('aside.notes.open')).toBeVisible();
  await page.getByTestId('hide-chat').click();
  await expect(page.locator('section.chat')).toHaveCount(0);
  await expect(page.getByRole('complementary', { name: 'Chat (hidden)' })).toBeVisible();
  await page.keyboard.press('Control+j');
  await expect(page.locator('section.chat')).toBeVisible();

  // Focus mode: the editor alone; Esc leaves it, and so does the same shortcut.
  await page.locator('.pane .cm-content').click();
  for (const leave of ['Escape', 'Control+Shift+Enter']) {
    await page.keyboard.press('Control+Shift+Enter');
    await expect(page.getByTestId('layout')).toHaveClass(/focus/);
    await expect(page.locator('aside.notes')).toBeHidden();
    await expect(page.locator('section.chat')).toHaveCount(0);
    expect((await box(page, '.editor-col')).width).toBeGreaterThanOrEqual(1279);
    if (leave === 'Escape') await shot24(page, 'focus-en');
    await page.keyboard.press(leave);
    await expect(page.getByTestId('layout')).not.toHaveClass(/focus/);
    await expect(page.locator('section.chat')).toBeVisible();
    await expect(page.locator('aside.notes.open')).toBeVisible();
  }
});

test('editor tabs: a click on the middle of each of three tabs picks it; the view buttons stay; many tabs scroll to the active one', async ({ page, serve }) => {
  const names = ['缓存设计与实验记录第一篇.md', '缓存设计与实验记录第二篇.md', '缓存设计与实验记录第三篇.md'];
  for (let i = 4; i <= 9; i++) names.push(`more-notes-about-the-cache-${i}.md`);
  for (const n of names) writeNote(serve, n, `# ${n}\n`);
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  for (const n of names.slice(0, 3)) await openNote(page, n);
  const modes = page.getByTestId('view-modes');
  for (const n of [names[1], names[0], names[2], names[1]]) {
    await tab(page, n).scrollIntoViewIfNeeded();
    const t = (await page.locator(`.pane .tab:has([data-path="${n}"])`).boundingBox())!;
    // What is under the tab's middle is the tab (no scrollbar, nothing over it).
    const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.closest('[data-path]')?.getAttribute('data-path') ?? null, [t.x + t.width / 2, t.y + t.height / 2]);
    expect(hit, `the middle of ${n}`).toBe(n);
    await page.mouse.click(t.x + t.width / 2, t.y + t.height / 2);
    await expect(tab(page, n)).toHaveAttribute('aria-selected', 'true');
  }
  for (const n of names.slice(3)) await openNote(page, n);
  const strip = await box(page, '.pane .strip');
  const mb = (await modes.boundingBox())!;
  expect(mb.x + mb.width, 'the view buttons end inside the strip').toBeLessThanOrEqual(strip.x + strip.width + 0.5);
  await expect(modes.locator('button')).toHaveCount(4);
  // The active tab is in view; the wheel scrolls the tabs back to the first.
  const inView = async (n: string) => {
    const t = (await page.locator(`.pane .tab:has([data-path="${n}"])`).boundingBox())!;
    const s = await box(page, '.pane .tabs');
    return t.x >= s.x - 0.5 && t.x + t.width <= s.x + s.width + 0.5;
  };
  await expect.poll(() => inView(names[names.length - 1])).toBe(true);
  expect(await inView(names[0])).toBe(false);
  await page.mouse.move(strip.x + 40, strip.y + strip.height / 2);
  for (let i = 0; i < 20 && !(await inView(names[0])); i++) await page.mouse.wheel(0, -200);
  expect(await inView(names[0]), 'the wheel scrolls the tabs').toBe(true);
  await shot24(page, 'tabs-en');
});

test('command palette (Ctrl+Shift+P) runs what is typed, in English and Chinese (IME); the shortcuts sheet (? and F1)', async ({ page, serve }) => {
  writeNote(serve, 'a.md', '# A\n');
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  await openNote(page, 'a.md');
  const palette = page.getByTestId('command-palette');
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('Control+Shift+P');
  await expect(palette).toBeVisible();
  // Every action with its shortcut.
  const row = (id: string) => palette.locator(`[data-command="${id}"]`);
  for (const [id, keys] of [
    ['app.settings', 'Ctrl+,'],
    ['chat.new', 'Ctrl+N'],
    ['notes.quickOpen', 'Ctrl+P'],
    ['notes.search', 'Ctrl+Shift+F'],
    ['chat.search', 'Ctrl+K'],
    ['panels.tree', 'Ctrl+B'],
    ['panels.chat', 'Ctrl+J'],
    ['panels.focus', 'Ctrl+Shift+Enter'],
  ]) {
    await expect(row(id).locator('kbd')).toHaveText(keys);
  }
  await expect(row('notes.new')).toBeVisible();
  await expect(row('editor.mode.preview')).toBeVisible();
  await expect(row('chat.export')).toHaveCount(0); // no session yet
  // Arrows move a highlight that shows.
  const first = palette.getByRole('option').first();
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('ArrowDown');
  const second = palette.getByRole('option').nth(1);
  await expect(second).toHaveAttribute('aria-selected', 'true');
  await expect(first).toHaveAttribute('aria-selected', 'false');
  const bg = (l: typeof first) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await bg(second)).not.toBe(await bg(first));
  await expect(palette.getByRole('combobox')).toHaveAttribute('aria-activedescendant', (await second.getAttribute('id'))!);
  // Type, Enter runs the first match.
  await page.keyboard.type('preview');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'editor.mode.preview');
  await page.keyboard.press('Enter');
  await expect(palette).toBeHidden();
  await expect(page.getByTestId('view-modes').locator('[data-mode="preview"]')).toHaveAttribute('aria-pressed', 'true');

  // In Chinese: composed with an IME, Enter while composing is the IME's.
  await page.evaluate(() => localStorage.setItem('mnote.locale', 'zh-CN'));
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await treeRow(page, 'a.md').click();
  await page.getByTestId('view-modes').locator('[data-mode="edit"]').click();
  await expect(page.locator('.pane .cm-content')).toBeVisible();
  await page.keyboard.press('Control+Shift+P');
  await expect(palette).toBeVisible();
  const cdp = await page.context().newCDPSession(page);
  const ime = new Ime(page, cdp);
  await ime.compose('zhuanzhu');
  await ime.keys('Enter');
  await expect(palette).toBeVisible();
  await ime.commit('专注');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'panels.focus');
  await expect(palette.getByRole('option').first().locator('.name')).toHaveText('专注模式（只显示编辑器）');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('layout')).toHaveClass(/focus/);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('layout')).not.toHaveClass(/focus/);
  // Pinyin initials find a Chinese label (专注模式: zzms).
  await page.keyboard.press('Control+Shift+P');
  await page.keyboard.type('zzms');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'panels.focus');
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();
  // English words find it in Chinese too.
  await page.keyboard.press('Control+Shift+P');
  await page.keyboard.type('new note');
  await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'notes.new');
  await page.keyboard.press('Escape');
  await expect(palette).toBeHidden();

  // The sheet: ? outside a text field (never inside one), and F1.
  const sheet = page.getByTestId('shortcuts-sheet');
  await page.locator('.pane .cm-content').click();
  await page.keyboard.type('?');
  await expect(sheet).toBeHidden();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('?');
  await expect(sheet).toBeVisible();
  await expect(sheet.locator('[data-command="app.palette"] kbd')).toHaveText('Ctrl+Shift+P');
  await expect(sheet.locator('[data-command="app.shortcuts"] kbd')).toHaveText(['?', 'F1']);
  await expect(sheet.locator('[data-command="chat.tab.nth"] kbd')).toHaveText('Ctrl+1…9');
  await expect(sheet.locator('h3')).toContainText(['通用', '面板', '笔记', '编辑器', '对话']);
  await shot24(page, 'sheet-zh');
  await page.keyboard.press('Escape');
  await expect(sheet).toBeHidden();
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('F1');
  await expect(sheet).toBeVisible();
  await page.mouse.click(5, HEIGHT - 5);
  await expect(sheet).toBeHidden();
});

test('Ctrl+K: ↑/↓ highlight a hit that shows, Enter opens it; every overlay closes on Esc and on a click outside', async ({ page, serve }) => {
  writeNote(serve, 'a.md', '# A\n\nSome text to write in.\n');
  await page.setViewportSize({ width: 1280, height: HEIGHT });
  await openApp(page, serve);
  await pickTestAgent(page);
  await sendSteps(page, [{ title: '第一个会话' }, { message: '缓存命中率 one' }]);
  await waitTurnEnd(page);
  await page.keyboard.press('Control+n');
  await expect(page.locator('.history button.open')).toHaveCount(2);
  await sendSteps(page, [{ title: '第二个会话' }, { message: '缓存命中率 two' }]);
  await waitTurnEnd(page);
  await openNote(page, 'a.md');

  // Ctrl+K over the folded list: the box keeps the focus, the arrows move a visible highlight.
  await page.locator('.pane .cm-content').click();
  await page.keyboard.press('Control+k');
  const input = page.getByTestId('search-input');
  await expect(input).toBeFocused();
  await input.fill('缓存命中率');
  await page.keyboard.press('Enter');
  const hits = page.getByTestId('search-results').getByRole('option');
  await expect.poll(() => hits.count()).toBeGreaterThanOrEqual(2);
  await expect(hits.first()).toHaveAttribute('aria-selected', 'false');
  const bg = (i: number) => hits.nth(i).locator('button').evaluate((el) => getComputedStyle(el).backgroundColor);
  const plain = await bg(0);
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(0)).toHaveAttribute('aria-selected', 'true');
  await expect(input).toBeFocused();
  await expect(input).toHaveAttribute('aria-activedescendant', 'hit-0');
  expect(await bg(0), 'the highlighted hit has a background of its own').not.toBe(plain);
  await page.keyboard.press('ArrowDown');
  await expect(hits.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(hits.nth(0)).toHaveAttribute('aria-selected', 'false');
  expect(await bg(1)).not.toBe(plain);
  expect(await bg(0)).toBe(plain);
  const want = (await hits.nth(1).locator('.title').textContent())!.trim();
  await page.keyboard.press('Enter');
  await expect(page.locator('.chat .head .title')).toHaveText(want);

  // Every overlay: Esc closes it, and so does a click outside it (on the note).
  const outside = async () => {
    const ed = await box(page, '.pane .cm-content');
    await page.mouse.click(ed.x + 200, ed.y + ed.height - 20);
  };
  const backdrop = async () => page.mouse.click(4, HEIGHT - 4);
  const overlays: [string, () => Promise<void>, ReturnType<Page['locator']>, () => Promise<void>][] = [
    ['sessions list over the chat', () => page.getByRole('button', { name: 'Show sessions' }).click(), page.locator('.sessions.peek'), outside],
    ['command palette', () => page.keyboard.press('Control+Shift+P'), page.getByTestId('command-palette'), backdrop],
    ['shortcuts sheet', () => page.keyboard.press('F1'), page.getByTestId('shortcuts-sheet'), backdrop],
    ['quick open', () => page.keyboard.press('Control+p'), page.getByRole('dialog', { name: 'Quick Open' }), backdrop],
    ['settings', () => page.keyboard.press('Control+,'), page.getByRole('dialog', { name: 'Settings' }), backdrop],
    ['session menu', () => page.getByTestId('session-menu').click(), page.getByRole('menu', { name: 'Session actions' }), outside],
    ['tree menu', () => page.getByTestId('file-tree').locator('[data-path="a.md"]').click({ button: 'right' }), page.getByRole('menu', { name: 'File actions' }), outside],
    ['folders menu', () => page.getByTestId('workspace-name').click(), page.getByRole('menu', { name: 'Folders' }), outside],
  ];
  for (const [name, open, shown, clickOutside] of overlays) {
    for (const how of ['Esc', 'click outside']) {
      await page.locator('.pane .cm-content').click();
      await open();
      await expect(shown, `${name} opens`).toBeVisible();
      if (how === 'Esc') await page.keyboard.press('Escape');
      else await clickOutside();
      await expect(shown, `${name} closes on ${how}`).toBeHidden();
    }
  }
});
