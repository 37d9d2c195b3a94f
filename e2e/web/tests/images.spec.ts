// Issue 17, images in prompts: a PNG pasted into the composer (a real
// ClipboardEvent carrying a DataTransfer) shows as a thumbnail, goes with
// the prompt as an ACP image block (the test agent reports its type and
// size), shows in the user message, and is still there after a reload
// (kept beside the transcript, fetched by hash). An image of another type
// is refused with a toast.
import { composer, expect, openApp, pickTestAgent, send, test, thread, waitTurnEnd, type Page } from './fixtures';

/** A 1×1 PNG (70 bytes). */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Pastes the 1×1 PNG (or, png false, 40 bytes of text named name) into the composer. */
async function pasteImage(page: Page, name = 'shot.png', png = true): Promise<void> {
  await composer(page).click();
  await page.evaluate(
    ({ name, png, data }) => {
      const b = png ? Uint8Array.from(atob(data), (c) => c.charCodeAt(0)) : new Uint8Array(40).fill(42);
      const dt = new DataTransfer();
      dt.items.add(new File([b], name, { type: png ? 'image/png' : 'text/plain' }));
      const ta = document.querySelector('[data-testid="composer-input"]') as HTMLTextAreaElement;
      ta.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
    },
    { name, png, data: PNG_1X1 },
  );
}

test('images: a pasted PNG goes to the agent, shows in the message, and is still there after a reload', async ({ page, serve }) => {
  await openApp(page, serve);
  await pickTestAgent(page);

  // Not an image: refused, nothing attached.
  await pasteImage(page, 'notes.txt', false);
  await expect(page.getByText('notes.txt is not a PNG, JPEG, GIF or WebP image.')).toBeVisible();
  await expect(page.getByTestId('composer-image')).toHaveCount(0);

  await pasteImage(page);
  await expect(page.getByTestId('composer-image')).toHaveCount(1);
  // The thumbnail (an object URL) shows the image.
  await expect.poll(() => page.getByTestId('composer-image').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
  await send(page, 'what is this');
  await waitTurnEnd(page);
  await expect(page.getByTestId('composer-image')).toHaveCount(0);
  await expect(thread(page).getByTestId('assistant-message').last()).toContainText('image image/png 70 bytes');
  const thumb = thread(page).getByTestId('user-message').getByTestId('message-image');
  await expect(thumb).toHaveCount(1);
  await expect(thumb).toHaveAttribute('src', 'data:image/png;base64,' + PNG_1X1);

  // The transcript keeps no base64; the image is a file beside it.
  const sessions = await serve.call<{ id: string }[]>('sessions.list', {});
  const snap = await serve.call<{ thread: { entries: { kind: string; blocks?: { raw: { hash?: string } }[] }[] } }>('sessions.open', { id: sessions[0].id });
  const hash = snap.thread.entries.find((e) => e.kind === 'user_message')?.blocks?.[0]?.raw.hash ?? '';
  expect(hash).toMatch(/^[0-9a-f]{64}$/);

  await page.reload();
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
  const again = thread(page).getByTestId('user-message').getByTestId('message-image');
  if ((await again.count()) === 0) await page.locator('.history button.open').first().click();
  await expect(again).toHaveCount(1);
  await expect(again).toHaveAttribute('src', 'data:image/png;base64,' + PNG_1X1);
  await expect.poll(() => again.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);

  // A click shows it larger; Esc closes it.
  await again.click();
  await expect(page.getByTestId('image-viewer')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('image-viewer')).toHaveCount(0);
});
