// The share page (controlplane/page.html, served by mnote-controlplane)
// writes its times in the viewer's time zone and the page's language with
// its one inline script; the server's text (UTC, marked so) stays as the
// tooltip. The script is run here as the page runs it.
import { afterEach, describe, expect, it } from 'vitest';

const PAGE = Object.values(
  import.meta.glob<string>('../../controlplane/page.html', { eager: true, query: '?raw', import: 'default' }),
)[0];

function script(): string {
  const m = /<script>([\s\S]*?)<\/script>/.exec(PAGE ?? '');
  if (!m) throw new Error('controlplane/page.html has no <script>');
  return m[1];
}

afterEach(() => {
  document.body.innerHTML = '';
  document.documentElement.lang = 'en';
});

/** Runs the page's script on a page in lang for a viewer in zone: the
 * viewer's zone is Intl's default (TZ is per process, and the tests run
 * in worker threads, so the default is given to the script's Intl). */
function render(lang: string, zone: string): HTMLElement {
  document.documentElement.lang = lang;
  const utc = lang === 'zh-CN' ? '2026年12月1日 15:04 UTC' : '1 Dec 2026 15:04 UTC';
  const started = lang === 'zh-CN' ? '开始于 ' : 'Started ';
  document.body.innerHTML = `<div class="meta">${started}<time datetime="2026-12-01T15:04:00Z">${utc}</time></div>`;
  class ViewerFormat extends Intl.DateTimeFormat {
    constructor(locales?: string | string[], opts?: Intl.DateTimeFormatOptions) {
      super(locales, { timeZone: zone, ...opts });
    }
  }
  new Function('Intl', script())({ DateTimeFormat: ViewerFormat });
  return document.querySelector('time')!;
}

describe('share page times', () => {
  it('are in the viewer’s time zone, in Chinese and in English', () => {
    let t = render('zh-CN', 'Asia/Shanghai');
    expect(t.textContent).toBe('2026年12月1日 23:04');
    expect(t.title).toBe('2026年12月1日 15:04 UTC');
    expect(document.querySelector('.meta')!.textContent).toBe('开始于 2026年12月1日 23:04');
    t = render('en', 'America/New_York');
    expect(t.textContent).toBe('1 Dec 2026 10:04');
    expect(t.title).toBe('1 Dec 2026 15:04 UTC');
    // A day boundary moves the date too.
    t = render('zh-CN', 'Pacific/Auckland');
    expect(t.textContent).toBe('2026年12月2日 04:04');
  });
});
