// The layout at laptop widths (issue 13): with a note open and a session
// whose header carries a long title, the agent, its status, a mode, a model
// and usage, at 1920, 1280, 1024, 900 and 640 px: no two header elements
// overlap (or leave the header), the chat column is at least 360 px wide
// wherever the window is >= 720 px, and below 720 px exactly one pane
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
import { headerBoxes, overlap } from './layout-helpers';
import { openNote, writeNote } from './workspace-helpers';

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
      if (w >= 720) {
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
