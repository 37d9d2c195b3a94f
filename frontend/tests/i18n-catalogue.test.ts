// The two catalogues (messages/<area>/en.json and zh-CN.json) hold the same
// keys with the same parameters; no message is empty or left in English in
// the Chinese catalogue; every message the code calls exists (tsc checks
// the calls; this checks the compiled functions against the files, so a
// catalogue the compiler failed to load fails here).
import { describe, expect, it } from 'vitest';
import { i18n, m, matchLocale } from '../src/lib/i18n.svelte';
import { compact, relativeTime } from '../src/lib/format';

// Every catalogue file, read by Vite at test time (no node:fs, so this file
// type-checks with the page's own types).
const FILES = import.meta.glob<Record<string, unknown>>('../messages/*/*.json', { eager: true, import: 'default' });
type Variant = { declarations?: string[]; selectors?: string[]; match: Record<string, string> };
type Catalogue = Record<string, string | Variant[]>;

function load(locale: string): Map<string, { area: string; value: string | Variant[] }> {
  const out = new Map<string, { area: string; value: string | Variant[] }>();
  for (const [file, json] of Object.entries(FILES)) {
    const mm = /\/messages\/([^/]+)\/([^/]+)\.json$/.exec(file);
    if (!mm || mm[2] !== locale) continue;
    const area = mm[1];
    const cat = json as Catalogue;
    for (const [k, v] of Object.entries(cat)) {
      if (k === '$schema') continue;
      if (out.has(k)) throw new Error(`${k} is in two areas: ${out.get(k)?.area} and ${area}`);
      if (!k.startsWith(`${area}_`)) throw new Error(`${area}/${locale}.json: ${k} must start with "${area}_"`);
      out.set(k, { area, value: v });
    }
  }
  return out;
}

/** The parameters a message takes: {name} in a text, inputs of variants. */
function params(v: string | Variant[]): string[] {
  const texts: string[] = [];
  const inputs: string[] = [];
  if (typeof v === 'string') texts.push(v);
  else {
    for (const x of v) {
      for (const d of x.declarations ?? []) {
        const mm = /^input (\w+)$/.exec(d);
        if (mm) inputs.push(mm[1]);
      }
      texts.push(...Object.values(x.match));
    }
  }
  const locals = new Set<string>();
  if (typeof v !== 'string') for (const x of v) for (const d of x.declarations ?? []) {
    const mm = /^local (\w+) =/.exec(d);
    if (mm) locals.add(mm[1]);
  }
  const found = texts.flatMap((t) => [...t.matchAll(/\{(\w+)\}/g)].map((x) => x[1])).filter((p) => !locals.has(p));
  return [...new Set([...inputs, ...found])].sort();
}

function texts(v: string | Variant[]): string[] {
  return typeof v === 'string' ? [v] : v.flatMap((x) => Object.values(x.match));
}

// Words that stay as they are in Chinese product text.
const SAME = /\b(mnote|Markdown|MCP|ACP|JSON|JSONL|HTML|URL|API|CLI|npm|PATH|Token|Agent|English|Esc|Ctrl|Shift|Enter|Tab|Cmd|Alt|ID|ms|Qwen|Claude|Codex|Gemini|OpenCode|Reasonix|Kimi|Hermes|goose)\b/g;

describe('message catalogues', () => {
  const en = load('en');
  const zh = load('zh-CN');

  it('hold the same keys in both locales', () => {
    expect([...zh.keys()].filter((k) => !en.has(k)), 'in zh-CN only').toEqual([]);
    expect([...en.keys()].filter((k) => !zh.has(k)), 'in en only').toEqual([]);
    expect(en.size).toBeGreaterThan(30);
  });

  it('give each message the same parameters in both locales', () => {
    const bad = [...en].filter(([k, v]) => zh.has(k) && params(v.value).join() !== params(zh.get(k)!.value).join());
    expect(bad.map(([k, v]) => `${k}: en {${params(v.value)}} zh-CN {${params(zh.get(k)!.value)}}`)).toEqual([]);
  });

  it('leave no message empty or untranslated', () => {
    const empty = [...en, ...zh].filter(([, v]) => texts(v.value).some((t) => !t.trim())).map(([k]) => k);
    expect(empty).toEqual([]);
    const english = [...zh]
      .filter(([k, v]) => {
        const e = en.get(k);
        if (!e) return false;
        const z = texts(v.value).join('|');
        const rest = z.replace(/\{\w+\}/g, '').replace(SAME, '');
        return z === texts(e.value).join('|') && /[a-z]{3,}/i.test(rest);
      })
      .map(([k]) => k);
    expect(english, 'the same text in en and zh-CN').toEqual([]);
  });

  it('are all compiled into message functions', () => {
    const compiled = new Set(Object.keys(m));
    expect([...en.keys()].filter((k) => !compiled.has(k))).toEqual([]);
  });
});

describe('locale', () => {
  it('follows the system languages: any Chinese is zh-CN, else English', () => {
    expect(matchLocale(['zh-TW', 'en'])).toBe('zh-CN');
    expect(matchLocale(['zh'])).toBe('zh-CN');
    expect(matchLocale(['fr-FR', 'en-GB'])).toBe('en');
    expect(matchLocale(['de'])).toBe('en');
    expect(matchLocale([])).toBe('en');
  });

  it('switches at once and is remembered', () => {
    try {
      i18n.choose('zh-CN');
      expect(m.common_cancel()).toBe('取消');
      expect(localStorage.getItem('mnote.locale')).toBe('zh-CN');
      expect(relativeTime(Date.now() - 2 * 3600_000)).toBe('2小时前');
      expect(compact(1_234_567)).toBe('123.5万');
      i18n.choose('en');
      expect(m.common_cancel()).toBe('Cancel');
      expect(m.common_language_system({ language: 'English' })).toBe('System (English)');
    } finally {
      i18n.choose('system');
    }
    expect(localStorage.getItem('mnote.locale')).toBe('system');
  });
});
