// Issue 13, tooltips never sit on top of dialogs: the editor's tooltips
// (CodeMirror's, z-index 500: the [[ completion, and one that stays open)
// and a hovered button's tooltip are under Settings when it opens.
import { expect, openApp, test } from './fixtures';
import { openNote, typeAtEnd, writeNote } from './workspace-helpers';

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What is drawn at (x, y): in the dialog, on its backdrop, or in something else (its class). */
async function drawnAt(page: import('@playwright/test').Page, x: number, y: number): Promise<string> {
  return page.evaluate(
    ([px, py]) => {
      const el = document.elementFromPoint(px, py);
      if (!el) return 'nothing';
      if (el.closest('[role="dialog"]')) return 'dialog';
      if (el.closest('.modal-backdrop')) return 'backdrop';
      return `other: ${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    },
    [x, y],
  );
}

function overlap(a: Box, b: Box): Box | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.width, b.x + b.width);
  const btm = Math.min(a.y + a.height, b.y + b.height);
  return r > x && btm > y ? { x, y, width: r - x, height: btm - y } : null;
}

test('the editor’s tooltips stay under the Settings dialog', async ({ page, serve }) => {
  writeNote(serve, 'alpha.md', '# Alpha\n\n');
  writeNote(serve, 'beta.md', '# Beta\n');
  await openApp(page, serve);
  // Narrow: the dialog covers most of the window, the editor's start too.
  await page.setViewportSize({ width: 900, height: 700 });
  await openNote(page, 'alpha.md');
  await typeAtEnd(page, '[[');
  const tip = page.locator('.cm-tooltip-autocomplete');
  await expect(tip).toBeVisible();
  const tipBox = (await tip.boundingBox())!;
  // The tooltip is on top before the dialog opens.
  expect(await drawnAt(page, tipBox.x + 8, tipBox.y + 8)).toMatch(/^other: .*cm-/);

  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  const dlgBox = (await dialog.boundingBox())!;
  expect(overlap(tipBox, dlgBox), 'the dialog opens over the tooltip').not.toBeNull();
  // Where the completion list was, the dialog or its backdrop is drawn.
  expect(await drawnAt(page, tipBox.x + 8, tipBox.y + 8)).toMatch(/^(dialog|backdrop)$/);

  // A tooltip that stays open (CodeMirror closes the completion on blur,
  // not every tooltip): placed as CodeMirror places them, position: fixed
  // with z-index 500 inside the editor, right under the dialog's centre.
  const [cx, cy] = [dlgBox.x + dlgBox.width / 2, dlgBox.y + dlgBox.height / 2];
  await page.evaluate(
    ([x, y]) => {
      const t = document.createElement('div');
      t.className = 'cm-tooltip cm-tooltip-hover';
      t.textContent = 'a tooltip';
      Object.assign(t.style, { position: 'fixed', zIndex: '500', left: `${x - 60}px`, top: `${y - 20}px`, width: '120px', height: '40px' });
      document.querySelector('.cm-editor')!.appendChild(t);
    },
    [cx, cy],
  );
  await expect(page.locator('.cm-tooltip-hover')).toHaveCount(1);
  expect(await drawnAt(page, cx, cy)).toBe('dialog');
  expect(await drawnAt(page, cx - 50, cy - 15)).toBe('dialog');
});

test('a hovered button’s tooltip goes under the Settings dialog', async ({ page, serve }) => {
  await openApp(page, serve);
  const gear = page.getByRole('button', { name: 'Settings' });
  await expect(gear).toHaveAttribute('title', /Settings/);
  await gear.hover();
  const box = (await gear.boundingBox())!;
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  expect(await drawnAt(page, cx, cy)).toMatch(/^other: /);
  await page.keyboard.press('Control+Comma');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  // Under the pointer (where the button's tooltip was), the modal layer:
  // the button is no longer hovered, so its tooltip cannot show over it.
  expect(await drawnAt(page, cx, cy)).toMatch(/^(dialog|backdrop)$/);
  expect(await gear.evaluate((el) => el.matches(':hover'))).toBe(false);
  // The dialog is the topmost thing at its own centre.
  const d = (await dialog.boundingBox())!;
  expect(await drawnAt(page, d.x + d.width / 2, d.y + d.height / 2)).toBe('dialog');
});
