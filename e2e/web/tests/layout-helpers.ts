// Layout measurements shared by layout.spec.ts and locale.spec.ts: the
// chat header's elements and their boxes, and whether two boxes overlap.
import type { Page } from '@playwright/test';

export type Box = { name: string; x: number; y: number; w: number; h: number };

/** The visible header elements' boxes, and the header's. */
export async function headerBoxes(page: Page): Promise<{ head: Box; items: Box[] }> {
  return page.evaluate(() => {
    const head = document.querySelector('.chat .head') as HTMLElement;
    const box = (name: string, el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { name, x: r.x, y: r.y, w: r.width, h: r.height };
    };
    const items: Box[] = [];
    const sel: [string, string][] = [
      ['title', '.title'],
      ['agent', '.agent-chip'],
      ['changes', '[data-testid="changes-button"]'],
      ['more', '[data-testid="header-more"]'],
      ['select', '.extras:not(.menu) select'],
      ['usage', '.extras:not(.menu) [data-testid="usage"]'],
      ['session menu', '.session-menu button.trigger'],
    ];
    for (const [name, q] of sel) {
      head.querySelectorAll(q).forEach((el, i) => {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0) items.push(box(`${name}${i ? ` ${i + 1}` : ''}`, el));
      });
    }
    return { head: box('header', head), items };
  });
}

export function overlap(a: Box, b: Box): boolean {
  const e = 0.5;
  return a.x + a.w > b.x + e && b.x + b.w > a.x + e && a.y + a.h > b.y + e && b.y + b.h > a.y + e;
}
