// The interface in each locale (issue 16): English and Simplified Chinese at
// 1280×800 and 1024×768, with a note whose name is a long Chinese one open
// in the editor and a session whose turn (a Chinese title, a thought, a tool
// card, a long Chinese answer with no spaces) is on screen. Layout
// landmarks, not pixels: the chat header's elements do not overlap, no
// label, button, tab or heading has its text clipped (one cut on purpose
// has text-overflow: ellipsis), the page does not overflow sideways, the
// chat column is >= 360 px and the answer no wider than it, the Chinese
// answer wraps with no closing punctuation at the start of a line, html
// lang is the locale, in zh-CN the labels are Chinese, and every Han
// character is drawn with a Simplified Chinese CJK font (never a tofu box
// or a Japanese fallback): the fonts Chromium really used, from DevTools.
//
// zh-CN is chosen as a person's saved choice is (localStorage
// 'mnote.locale', before the page loads); the last test leaves it unset
// and gives the browser Chinese as its language (the default follows it).
// Screenshots: out/screens/locale-<locale>-<width>.png (MNOTE_E2E_SHOTS=DIR:
// DIR/screens/).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT, OUT, ROOT, expect, test, type Locator, type Page, type Serve } from './fixtures';
import { headerBoxes, overlap } from './layout-helpers';
import { openNote, tab, treeRow, writeNote } from './workspace-helpers';

const SHOTS = path.join(process.env.MNOTE_E2E_SHOTS || OUT, 'screens');
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
] as const;
const LOCALES = ['en', 'zh-CN'] as const;
type Locale = (typeof LOCALES)[number];

const NOTE = 'notes/关于提示词缓存命中率下降问题的长篇设计讨论与三次实验的详细记录.md';
const TITLE = '关于缓存命中率的设计讨论与实验记录';
const SENTENCE = '我们在三次实验中测量了提示词缓存的命中率，发现在会话变长之后命中率明显下降；原因是每一轮都改写了系统提示的开头部分。';
// Long Chinese with no spaces at all: sentences with punctuation, one run
// of Han characters with no break opportunity other than between them, and
// one where every other character is a comma (a line broken anywhere would
// soon start with one).
const ANSWER = `${SENTENCE.repeat(6)}\n\n${'缓存命中率'.repeat(40)}\n\n${'对，'.repeat(150)}`;
const THOUGHT = `先读一下笔记，${SENTENCE.repeat(2)}`;
const HAN = /\p{Script=Han}/u;
// Characters that must not begin a line (line-break: auto, Chinese rules).
const NO_LINE_START = '，。、；：？！）」』》】〉…';

// ---------------------------------------------------------------------------
// The message catalogue (frontend/messages/<area>/<locale>.json): the labels
// the interface shows, so the steps below work in either language.

const catalogue: Record<Locale, Record<string, unknown>> = { en: {}, 'zh-CN': {} };
for (const area of fs.readdirSync(path.join(ROOT, 'frontend/messages'))) {
  for (const l of LOCALES) {
    const f = path.join(ROOT, 'frontend/messages', area, `${l}.json`);
    if (fs.existsSync(f)) Object.assign(catalogue[l], JSON.parse(fs.readFileSync(f, 'utf8')));
  }
}

/** A catalogue message (a plain one, with its {params} filled in). */
function msg(l: Locale, key: string, params: Record<string, string> = {}): string {
  const v = catalogue[l][key];
  if (typeof v !== 'string') throw new Error(`no plain message ${key} in the ${l} catalogue`);
  return v.replace(/\{(\w+)\}/g, (_, p: string) => params[p] ?? `{${p}}`);
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The message in either language, as a whole: steps keep working while a component is not converted yet. */
function either(key: string, params: Record<string, string> = {}): RegExp {
  return new RegExp(`^(${LOCALES.map((l) => esc(msg(l, key, params))).join('|')})$`);
}

// ---------------------------------------------------------------------------
// Steps as a person takes them, in either language (fixtures.ts has the
// English ones).

async function openAppIn(page: Page, serve: Serve): Promise<void> {
  await page.goto(await serve.url());
  await expect(page.locator('aside.sidebar')).toBeVisible();
  await expect(page.locator('.sidebar button.agent .name')).not.toHaveText(either('app_loading_agents'));
}

async function pickAgent(page: Page): Promise<void> {
  const picker = page.getByTestId('sidebar-agent-picker');
  await picker.locator('button.agent').click();
  await expect(picker.getByRole('combobox', { name: either('agents_search') })).toBeFocused();
  const option = picker.locator(`[role="option"][data-name="${AGENT}"]`);
  await expect(option).toHaveCount(1);
  await expect(option.locator('.dot')).toHaveClass(/\bready\b/);
  await expect(picker.locator('[data-action="add"]')).toHaveText(either('agents_add_own'));
  await option.click();
  await expect(picker.getByRole('listbox')).toBeHidden();
  await expect(picker.locator('button.agent .name')).toHaveText(AGENT);
}

function composerBox(page: Page): Locator {
  return page.getByRole('combobox', { name: either('chat_message') });
}

async function sendStepsIn(page: Page, steps: unknown[]): Promise<void> {
  const box = composerBox(page);
  await box.click();
  await box.fill(JSON.stringify(steps));
  await box.press('Enter');
  await expect(page.getByTestId('user-message')).toHaveCount(1, { timeout: 15_000 });
  await expect(page.locator('.composer').getByRole('button', { name: either('chat_send') })).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('.composer').getByRole('button', { name: either('chat_stop') })).toHaveCount(0);
}

/** The app in a locale with the Chinese note open and a finished turn whose answer is long Chinese. */
async function setUp(page: Page, serve: Serve, l: Locale | null): Promise<void> {
  writeNote(serve, NOTE, `# 实验记录\n\n${SENTENCE}\n`);
  writeNote(serve, 'notes/cache.md', '# Cache\n\nThe hit ratio, measured.\n');
  // The saved choice, as Settings → Language keeps it (null: none, the system's).
  if (l) await page.addInitScript((v) => localStorage.setItem('mnote.locale', v), l);
  await page.setViewportSize(SIZES[0]);
  await openAppIn(page, serve);
  await pickAgent(page);
  const file = path.join(serve.workspace, NOTE);
  await sendStepsIn(page, [
    { title: TITLE },
    { thought: THOUGHT },
    {
      toolCall: {
        toolCallId: 'r1',
        title: `读取 ${NOTE}`,
        kind: 'read',
        status: 'completed',
        locations: [{ path: file }],
        content: [{ type: 'content', content: { type: 'text', text: SENTENCE.repeat(3) } }],
      },
    },
    { message: ANSWER },
  ]);
  await expect(page.locator('.chat .head h2.title')).toHaveText(TITLE);
  await openNote(page, NOTE);
}

// ---------------------------------------------------------------------------
// Measurements (in the page)

type Clip = { what: string; text: string; sw: number; cw: number; sh: number; ch: number; ellipsis: boolean };

/**
 * Labels, buttons, tabs, headings, badges and their inner boxes whose text
 * does not fit: wider (or, when they hide their overflow, taller) than
 * their box. `ellipsis`: cut on purpose (overflow hidden, nowrap,
 * text-overflow: ellipsis).
 */
function clipped(page: Page): Promise<Clip[]> {
  return page.evaluate(() => {
    const roots = document.querySelectorAll(
      'button, label, [role="tab"], [role="button"], summary, h1, h2, h3, h4, h5, h6, .badge, th, legend, .title, .name',
    );
    const seen = new Set<Element>();
    const out: Clip[] = [];
    const describe = (el: Element) => {
      const id = el.getAttribute('data-testid');
      const cls = [...el.classList].slice(0, 3).join('.');
      return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ''}${cls ? `.${cls}` : ''}`;
    };
    for (const root of roots) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (seen.has(el) || !(el instanceof HTMLElement) || el instanceof SVGElement) continue;
        seen.add(el);
        const text = (el.innerText || '').trim();
        if (!text || el.clientWidth === 0 || el.closest('.cm-editor, .xterm, .sr-only, pre')) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > innerHeight) continue;
        const cs = getComputedStyle(el);
        if (cs.visibility === 'hidden' || /auto|scroll/.test(cs.overflowX)) continue;
        const wide = el.scrollWidth > el.clientWidth + 1;
        const tall = cs.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 2;
        if (!wide && !tall) continue;
        const ellipsis = cs.textOverflow === 'ellipsis' && cs.overflowX !== 'visible' && /nowrap|pre/.test(cs.whiteSpace);
        out.push({ what: describe(el), text: text.slice(0, 60), sw: el.scrollWidth, cw: el.clientWidth, sh: el.scrollHeight, ch: el.clientHeight, ellipsis });
      }
    }
    return out;
  });
}

/** The characters that begin a line of the element's text (the Range rects of each character). */
function lineStarts(loc: Locator): Promise<string[]> {
  return loc.evaluate((root) => {
    const starts: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    let lastTop = -Infinity;
    let lastLeft = Infinity;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const s = n.textContent ?? '';
      for (let i = 0; i < s.length; i++) {
        if (/\s/.test(s[i])) continue;
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const r = range.getBoundingClientRect();
        if (r.width === 0) continue;
        // A new line: lower than the last character and back to the left.
        if (r.top > lastTop + r.height / 2 && r.left < lastLeft) starts.push(s[i]);
        lastTop = r.top;
        lastLeft = r.left;
      }
    }
    return starts;
  });
}

type PlatformFont = { familyName: string; glyphCount: number; isCustomFont: boolean };

/** The fonts Chromium used to draw the element's text (DevTools CSS.getPlatformFontsForNode), for each text node under it. */
async function fontsOf(page: Page, selector: string): Promise<PlatformFont[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('DOM.enable');
    await cdp.send('CSS.enable');
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: false });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    if (!nodeId) throw new Error(`no element ${selector}`);
    // Text nodes are children in the DOM tree DevTools returns; the fonts are asked of each element holding text.
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId, selector: '*' });
    const fonts = new Map<string, PlatformFont>();
    for (const id of [nodeId, ...nodeIds]) {
      const r = await cdp.send('CSS.getPlatformFontsForNode', { nodeId: id }).catch(() => ({ fonts: [] as PlatformFont[] }));
      for (const f of r.fonts as PlatformFont[]) {
        const had = fonts.get(f.familyName);
        fonts.set(f.familyName, { ...f, glyphCount: (had?.glyphCount ?? 0) + f.glyphCount });
      }
    }
    return [...fonts.values()];
  } finally {
    await cdp.detach();
  }
}

const CJK_SC = /Noto Sans CJK SC|Source Han Sans SC|PingFang SC|Hiragino Sans GB|Microsoft YaHei|WenQuanYi/;

/** Every Han character under the selector is drawn with a Simplified Chinese CJK font. */
async function checkCJKFont(page: Page, selector: string, label: string): Promise<void> {
  const fonts = await fontsOf(page, selector);
  const cjk = fonts.filter((f) => /CJK|Han|PingFang|Hiragino|YaHei|WenQuanYi/.test(f.familyName));
  expect(cjk.length, `${label}: a CJK font draws the Chinese of ${selector} (fonts: ${JSON.stringify(fonts)})`).toBeGreaterThan(0);
  for (const f of cjk) {
    expect(f.familyName, `${label}: ${selector} is drawn in a Simplified Chinese face (fonts: ${JSON.stringify(fonts)})`).toMatch(CJK_SC);
  }
  // No font without Han glyphs was asked to draw them (a tofu box is drawn by the first font of the stack: DejaVu, Cantarell …):
  // the CJK face drew at least as many glyphs as there are Han characters.
  const han = await page.locator(selector).first().evaluate((el) => [...(el.textContent ?? '')].filter((c) => /\p{Script=Han}/u.test(c)).length);
  const drawn = cjk.reduce((a, f) => a + f.glyphCount, 0);
  expect(drawn, `${label}: glyphs drawn in CJK faces for ${han} Han characters of ${selector}`).toBeGreaterThanOrEqual(han);
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

async function resize(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await expect.poll(() => page.evaluate(() => window.innerWidth)).toBe(size.width);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

async function checkLayout(page: Page, l: Locale, label: string): Promise<void> {
  const vw = page.viewportSize()!.width;

  // The chat header: no two elements overlap, all inside it.
  const { head, items } = await headerBoxes(page);
  expect(items.map((b) => b.name), `${label}: header elements`).toEqual(expect.arrayContaining(['title', 'agent', 'session menu']));
  for (const b of items) {
    expect(b.x, `${label}: ${b.name} starts inside the header`).toBeGreaterThanOrEqual(head.x - 0.5);
    expect(b.x + b.w, `${label}: ${b.name} ends inside the header`).toBeLessThanOrEqual(head.x + head.w + 0.5);
    for (const o of items) {
      if (o !== b) expect(overlap(b, o), `${label}: ${b.name} overlaps ${o.name}`).toBe(false);
    }
  }

  // No text clipped, except where cut on purpose with an ellipsis.
  const clips = await clipped(page);
  const bad = clips.filter((c) => !c.ellipsis);
  expect(bad, `${label}: text that does not fit its box (and has no ellipsis)`).toEqual([]);
  // The long Chinese names are among those cut with an ellipsis.
  expect(clips.map((c) => c.text), `${label}: the note's tab is cut with an ellipsis`).toEqual(
    expect.arrayContaining([expect.stringMatching(/^关于提示词缓存/)]),
  );

  // No sideways overflow of the page.
  const widths = await page.evaluate(() => ({
    html: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
    app: document.getElementById('app')!.scrollWidth,
  }));
  for (const [what, w] of Object.entries(widths)) expect(w, `${label}: ${what} scrollWidth`).toBeLessThanOrEqual(vw);

  // The chat column, the note beside it, and the answer within the column.
  const chat = (await page.locator('section.chat').boundingBox())!;
  expect(chat.width, `${label}: chat column width`).toBeGreaterThanOrEqual(360);
  expect(chat.x + chat.width, `${label}: the chat ends in the window`).toBeLessThanOrEqual(vw + 0.5);
  await expect(page.locator('.editor-col')).toBeVisible();
  const answer = page.getByTestId('assistant-message').last();
  const a = (await answer.boundingBox())!;
  expect(a.x, `${label}: the answer starts in the chat column`).toBeGreaterThanOrEqual(chat.x - 0.5);
  expect(a.x + a.width, `${label}: the answer ends in the chat column`).toBeLessThanOrEqual(chat.x + chat.width + 0.5);
  const inner = await answer.evaluate((el) => ({ sw: el.scrollWidth, cw: el.clientWidth, h: el.clientHeight }));
  expect(inner.sw, `${label}: nothing in the answer is wider than it`).toBeLessThanOrEqual(inner.cw + 1);
  // The answer wraps into many lines, never with closing punctuation first.
  const starts = await lineStarts(answer);
  expect(starts.length, `${label}: lines of the Chinese answer`).toBeGreaterThan(8);
  expect(starts.filter((c) => NO_LINE_START.includes(c)), `${label}: lines starting with closing punctuation`).toEqual([]);
  for (const card of ['thought', 'tool-card']) {
    const b = (await page.getByTestId(card).first().boundingBox())!;
    expect(b.x + b.width, `${label}: the ${card} ends in the chat column`).toBeLessThanOrEqual(chat.x + chat.width + 0.5);
  }

  // The tree row and the tab of the long Chinese name: one line, in the
  // window (at 1024 px the notes pane folds away: then the tab alone).
  const rows: [string, Locator][] = [['tab', tab(page, NOTE)]];
  if (vw >= 1280) rows.push(['tree row', treeRow(page, NOTE)]);
  for (const [what, loc] of rows) {
    await expect(loc, `${label}: the ${what}`).toBeVisible();
    const box = (await loc.boundingBox())!;
    expect(box.height, `${label}: the ${what} stays one line`).toBeLessThanOrEqual(36);
    expect(box.x + box.width, `${label}: the ${what} ends in the window`).toBeLessThanOrEqual(vw + 0.5);
  }

  expect(await page.evaluate(() => document.documentElement.lang), `${label}: html lang`).toBe(l);
}

/** In zh-CN the landmarks' labels are Chinese; in English they have no Han characters. */
async function checkLabels(page: Page, l: Locale, label: string): Promise<void> {
  const send = page.locator('.composer').getByRole('button', { name: either('chat_send') });
  const labels = {
    'composer placeholder': await composerBox(page).getAttribute('placeholder'),
    'new session button': await page.locator('button[title*="Ctrl+N"]').first().getAttribute('aria-label'),
    'send button': (await send.getAttribute('aria-label')) ?? (await send.innerText()),
    'thought summary': await page.getByTestId('thought').first().locator('summary .label').innerText(),
    'notes pane': await page.locator('aside.notes').getAttribute('aria-label'),
    'open notes': await page.locator('.pane [role="tablist"]').first().getAttribute('aria-label'),
  };
  for (const [what, text] of Object.entries(labels)) {
    expect(text, `${label}: the ${what}`).toBeTruthy();
    if (l === 'zh-CN') expect(text!, `${label}: the ${what} is Chinese`).toMatch(HAN);
    else expect(text!, `${label}: the ${what} is English`).not.toMatch(HAN);
  }
  expect(labels['new session button']).toBe(msg(l, 'app_new_session'));
}

/** The Han characters of the answer, the header's title, the tree row, the tab and the thought's summary (its label
 * in zh-CN, its preview in both) are drawn in a Simplified Chinese face. */
async function checkFonts(page: Page, l: Locale): Promise<void> {
  for (const sel of [
    '[data-testid="assistant-message"]',
    '.chat .head h2.title',
    `[data-testid="file-tree"] [data-path="${NOTE}"]`,
    `.pane [role="tab"][data-path="${NOTE}"]`,
    '[data-testid="thought"] summary',
  ]) {
    await checkCJKFont(page, sel, l);
  }
}

for (const l of LOCALES) {
  test(`locale ${l} at 1280×800 and 1024×768: nothing clipped or overflowing, Chinese wraps, CJK fonts`, async ({ page, serve }) => {
    await setUp(page, serve, l);
    for (const size of SIZES) {
      const label = `${l} ${size.width}×${size.height}`;
      await resize(page, size);
      await checkLayout(page, l, label);
      await checkLabels(page, l, label);
      if (size.width === 1280) await checkFonts(page, l);
      await shot(page, `locale-${l}-${size.width}`);
    }
  });
}

test.describe('the system language', () => {
  test.use({ locale: 'zh-CN' });
  test('a browser whose language is Chinese gets the Chinese interface when nothing was chosen', async ({ page, serve }) => {
    await page.setViewportSize(SIZES[0]);
    await openAppIn(page, serve);
    expect(await page.evaluate(() => navigator.language)).toBe('zh-CN');
    await expect.poll(() => page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await expect(page.locator('aside.sidebar')).toHaveAttribute('aria-label', msg('zh-CN', 'app_sessions'));
    await expect(page.locator('button[title*="Ctrl+N"]').first()).toHaveAttribute('aria-label', msg('zh-CN', 'app_new_session'));
  });
});

// Text that comes from Go (issue 24): a preset's install note is worded
// from the catalogue by the key Go sends with it, not shown in Go's English.
test('zh-CN: the agents dialog words a preset’s install note in Chinese', async ({ page, serve }) => {
  await page.addInitScript(() => localStorage.setItem('mnote.locale', 'zh-CN'));
  await page.setViewportSize(SIZES[0]);
  await openAppIn(page, serve);
  await page.locator('.sidebar button.agent').click();
  await page.getByTestId('sidebar-agent-picker').getByRole('button', { name: msg('zh-CN', 'agents_manage') }).click();
  const dialog = page.getByRole('dialog', { name: msg('zh-CN', 'agents_title') });
  const goose = dialog.locator('.agent').filter({ has: page.locator('.title', { hasText: /^goose$/ }) });
  await expect(goose.locator('.badge').first()).toHaveText(msg('zh-CN', 'agents_status_missing'));
  await expect(goose.getByTestId('install-command')).toHaveText('brew install block-goose-cli');
  await expect(goose.getByTestId('install-note')).toHaveText(msg('zh-CN', 'agents_preset_goose_install_note'));
  await expect(dialog).not.toContainText('other ways to install');
});
