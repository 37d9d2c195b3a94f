// A composition of the focused field's, driven as an IME drives it
// (Chromium's own: CDP Input.imeSetComposition makes the compositionstart /
// update events and the marked text; Input.insertText commits). Used by
// ime.spec.ts, live-preview.spec.ts and, as imeType, the specs that only
// type Chinese.
import type { CDPSession, Page } from '@playwright/test';

const CODE: Record<string, string> = { Enter: 'Enter', Escape: 'Escape', Tab: 'Tab', ' ': 'Space', ArrowDown: 'ArrowDown', ArrowUp: 'ArrowUp' };

/** A composition of the focused field's, driven as an IME drives it. */
export class Ime {
  constructor(
    private readonly page: Page,
    private readonly cdp: CDPSession,
  ) {}

  /** Starts logging, in the page, the keydowns that arrive while composing. */
  static async attach(page: Page): Promise<Ime> {
    await page.addInitScript(() => {
      const w = window as unknown as { __imeKeys: string[] };
      w.__imeKeys = [];
      window.addEventListener('keydown', (e) => e.isComposing && w.__imeKeys.push(`${e.key}/${e.keyCode}`), true);
    });
    return new Ime(page, await page.context().newCDPSession(page));
  }

  /** The composition shows `text` (pinyin, or the candidate an inline IME shows), the caret at its end. */
  async compose(text: string): Promise<void> {
    await this.cdp.send('Input.imeSetComposition', { text, selectionStart: text.length, selectionEnd: text.length });
  }

  /** Keys as the IME passes them on: keyCode 229. */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) {
      for (const type of ['keyDown', 'keyUp'] as const) {
        await this.cdp.send('Input.dispatchKeyEvent', { type, key, code: CODE[key], windowsVirtualKeyCode: 229, nativeVirtualKeyCode: 229 });
      }
    }
  }

  /** Commits the composition (compositionend) with the chosen text. */
  async commit(text: string): Promise<void> {
    await this.cdp.send('Input.insertText', { text });
  }

  /** The composing keydowns the page saw since the last call. */
  async seen(): Promise<string[]> {
    return this.page.evaluate(() => {
      const w = window as unknown as { __imeKeys: string[] };
      return w.__imeKeys.splice(0);
    });
  }
}

/**
 * Types Chinese into the focused field as a pinyin IME does: the pinyin
 * composed, keys passed on while composing (e.g. the Enter that picks a
 * candidate, which must not act), then the committed text.
 */
export async function imeType(page: Page, pinyin: string, text: string, ...keysWhileComposing: string[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const ime = new Ime(page, cdp);
    await ime.compose(pinyin);
    await ime.keys(...keysWhileComposing);
    await ime.commit(text);
  } finally {
    await cdp.detach();
  }
}
