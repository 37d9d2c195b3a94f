// Obsidian's embeds in a folder of notes brought over from it: ![[图 1.png]]
// names an image by its file name wherever it lies in the folder (beside
// the note first, then the shortest path), ![[a.png|120]] gives its width,
// ![[报告.pdf]] is a file that opens in the desktop's program, ![[Note]]
// and ![[Note#Heading]] show the note (or that section) in the preview. Live preview and the preview show them; an embed
// whose file is not there shows its name as missing, and never changes the
// note's text (live preview once read such a placeholder as typed text and
// saved "🖼 name" over the embed).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, openApp, test, type Page } from './fixtures';
import { editorText, indexed, openNote, readNote, tab, writeNote } from './workspace-helpers';

/** A 2×2 PNG (red). */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGO4GewPRAwQCgArqgXtu+mu5gAAAABJRU5ErkJggg==';

const NOTE = ['# 周记', '', '![[图 1.png|120]]', '', '![[没有的图.png]] 之后的字', '', '![[报告.pdf]] 与 ![[缓存设计]]', '', '![[缓存设计#结果]]', '', '末行', ''].join('\n');

const line = (page: Page, text: string) => editorText(page).locator('.cm-line', { hasText: text });

test.describe('on a desktop', () => {
  // A desktop session for the launcher (serve runs under none in CI); the
  // launcher itself is the fixture's stand-in.
  test.use({ serveEnv: { DISPLAY: process.env.DISPLAY || ':mnote-e2e' } });

  test('embeds: images found by name anywhere, at their width; a PDF opens in the desktop’s program; a missing one leaves the note as written', async ({
    page,
    serve,
  }) => {
    writeNote(serve, '日记/周记.md', NOTE);
    writeNote(serve, '缓存设计.md', '# 缓存设计\n\n命中率很高。\n\n## 结果\n\n第一次 80%。\n\n## 以后\n\n再说。\n');
    for (const [rel, data] of [
      ['附件/图片/图 1.png', Buffer.from(PNG, 'base64')],
      ['资料/2026/报告.pdf', Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n%%EOF\n', 'latin1')],
    ] as const) {
      fs.mkdirSync(path.dirname(path.join(serve.workspace, rel)), { recursive: true });
      fs.writeFileSync(path.join(serve.workspace, rel), data);
    }
    await indexed(serve, '周记');
    await expect.poll(async () => (await serve.call<{ path: string }>('notes.resolve', { from: '日记/周记.md', target: '报告.pdf', wiki: true })).path).toBe('资料/2026/报告.pdf');
    await openApp(page, serve);
    await openNote(page, '日记/周记.md');
    await line(page, '末行').click();

    // Live preview: the image in place of its markup, 120 px wide.
    const img = editorText(page).locator('img.cm-lp-img');
    await expect(img).toHaveCount(1);
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(2);
    expect(await img.evaluate((i: HTMLImageElement) => i.getBoundingClientRect().width)).toBe(120);
    await expect(editorText(page)).not.toContainText('![[图 1.png');
    await expect(line(page, '之后的字').locator('.cm-lp-img-missing')).toContainText('没有的图.png');
    await expect(line(page, '与')).toHaveText('报告.pdf 与 缓存设计');
    // A note embedded on a line of its own shows there, its heading's section alone.
    const lpEmbed = editorText(page).getByTestId('note-embed');
    await expect(lpEmbed).toHaveCount(1);
    await expect(lpEmbed.locator('.md-embed-body')).toContainText('第一次 80%。');
    await expect(lpEmbed.locator('.md-embed-body')).not.toContainText('再说');
    await page.screenshot({ path: test.info().outputPath('live-embeds.png') });

    // A plain click on the PDF embed opens it in the desktop's program, not as text.
    await line(page, '与').locator('.cm-lp-wikilink', { hasText: '报告.pdf' }).click();
    await expect.poll(() => serve.opened()).toEqual([path.join(serve.workspace, '资料/2026/报告.pdf')]);
    await expect(tab(page, '资料/2026/报告.pdf')).toHaveCount(0);

    // The preview: the same image, the missing one marked, the file and note as links.
    await page.getByTestId('view-modes').locator('[data-mode="preview"]').click();
    const pv = page.getByTestId('preview');
    const pimg = pv.locator('img.md-embed').first();
    await expect.poll(() => pimg.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(2);
    expect(await pimg.evaluate((i: HTMLImageElement) => i.getBoundingClientRect().width)).toBe(120);
    await expect(pv.locator('img.md-embed.md-missing')).toHaveAttribute('alt', '没有的图.png');
    await pv.locator('a.md-embed-file', { hasText: '报告.pdf' }).click();
    await expect.poll(() => serve.opened().length).toBe(2);
    // The embedded note shows under its link; a heading's embed, its section alone.
    const embeds = pv.getByTestId('note-embed');
    await expect(embeds).toHaveCount(2);
    await expect(embeds.nth(0).locator('.md-embed-body')).toContainText('命中率很高。');
    await expect(embeds.nth(1).locator('.md-embed-body')).toContainText('第一次 80%。');
    await expect(embeds.nth(1).locator('.md-embed-body')).not.toContainText('命中率很高');
    await expect(embeds.nth(1).locator('.md-embed-body')).not.toContainText('再说');
    await pv.locator('a.md-embed-note', { hasText: '缓存设计' }).first().click();
    await expect(tab(page, '缓存设计.md')).toHaveAttribute('aria-selected', 'true');

    // Nothing of that wrote to the note: not saved, not changed.
    await expect(tab(page, '日记/周记.md')).not.toHaveClass(/dirty/);
    expect(readNote(serve, '日记/周记.md')).toBe(NOTE);
  });
});
