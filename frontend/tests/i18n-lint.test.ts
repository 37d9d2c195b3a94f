// Every user-visible string comes from the message catalogue
// (messages/<area>/<locale>.json through lib/i18n): this test fails on
// hard-coded text in the components (text nodes, text attributes such as
// title, placeholder and aria-label, string literals in template
// expressions) and on prose-like string literals in the scripts of
// components, stores and lib modules. A line (or the line after a comment)
// marked `i18n-ignore` is exempt: use it for text that is not interface
// text (a code sample, a brand name, a test id), and say why beside it.
import { parse } from 'svelte/compiler';
import { describe, expect, it } from 'vitest';

// Every source file of the page (not the generated src/paraglide), read by
// Vite at test time, keyed by its path relative to src/.
const SOURCES: Record<string, string> = Object.fromEntries(
  Object.entries(
    import.meta.glob<string>(['../src/**/*.svelte', '../src/**/*.ts', '!../src/paraglide/**', '!../src/**/*.d.ts'], {
      eager: true,
      query: '?raw',
      import: 'default',
    }),
  ).map(([k, v]) => [k.replace(/^\.\.\/src\//, ''), v]),
);

// Attributes whose value a person reads (on HTML elements; on components,
// any attribute whose value looks like prose counts).
const TEXT_ATTRS = new Set([
  'title',
  'placeholder',
  'alt',
  'label',
  'aria-label',
  'aria-description',
  'aria-placeholder',
  'aria-roledescription',
  'aria-valuetext',
]);
// Attributes that never hold interface text.
const CODE_ATTRS = new Set(['class', 'style', 'id', 'href', 'src', 'type', 'name', 'role', 'for', 'autocomplete', 'lang', 'dir', 'd', 'viewBox', 'fill', 'stroke', 'accept', 'rel', 'target', 'inputmode', 'enterkeyhint', 'spellcheck', 'wrap', 'method', 'kind', 'variant', 'icon', 'size', 'mode', 'value', 'key']);

// Words that look like prose but are keys, events or protocol values.
const NOT_PROSE = new Set([
  'Enter', 'Escape', 'Esc', 'Tab', 'Backspace', 'Delete', 'Home', 'End', 'PageUp', 'PageDown', 'ArrowUp', 'ArrowDown',
  'ArrowLeft', 'ArrowRight', 'Shift', 'Control', 'Meta', 'Alt', 'F2', 'Content-Type', 'Authorization', 'Bearer',
]);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Text a person would read: any CJK; a capitalised word ("Stop");
 * two or more words ("just now"). Not code-like strings (paths, class
 * lists, identifiers, CSS, selectors, MIME types). */
export function isProse(s: string): boolean {
  const t = s.trim();
  if (!t || NOT_PROSE.has(t)) return false;
  if (CJK.test(t)) return true;
  if (!/\p{L}/u.test(t)) return false;
  if (/^[\w.-]+\/[\w.+-]+$/.test(t)) return false; // MIME type, path
  if (/^[.#[:]|^--|[{};]|=>|^\w+\(|^\$/.test(t)) return false; // selectors, CSS, code
  if (/^((Mod|Ctrl|Alt|Shift|Meta)\+)+([^+\s]|F\d+|[A-Z][a-z]+)$/.test(t)) return false; // shortcuts (lib/commands: "Mod+Shift+P")
  if (/^(https?:|mailto:|data:|blob:|\/|\.\/|<)/.test(t)) return false; // URLs, paths, HTML built in code
  if (/var\(--|^\d|\d(px|em|rem|%)\b/.test(t)) return false; // CSS values
  if (/^[a-z0-9_.:/-]+$/.test(t)) return false; // identifiers, class names, keys
  if (/^[A-Z0-9_]+$/.test(t)) return false; // CONSTANTS
  if (/^[a-z][\w-]*( [a-z][\w-]*)*$/.test(t) && !/ /.test(t)) return false;
  if (/^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)+$/.test(t) && t.split(' ').every((w) => w.includes('-'))) return false; // class lists
  if (/^[\p{Lu}][\p{Ll}]+$/u.test(t)) return true; // "Stop"
  if (/^[A-Za-z][a-zA-Z0-9]*$/.test(t)) return false; // camelCase identifiers, Key names
  return /\p{L}{2,}[\s\u00a0]+\p{L}/u.test(t) || /\p{Lu}/u.test(t[0]) || /[…?!]$/.test(t);
}

type Hit = { file: string; line: number; text: string };

type Node = { type: string; start: number; end: number; [k: string]: unknown };

function lineOf(src: string, pos: number): number {
  let n = 1;
  for (let i = 0; i < pos && i < src.length; i++) if (src.charCodeAt(i) === 10) n++;
  return n;
}

function ignored(lines: string[], line: number): boolean {
  return /i18n-ignore/.test(lines[line - 1] ?? '') || /i18n-ignore/.test(lines[line - 2] ?? '');
}

// Calls whose string arguments are not shown to a person.
const CODE_CALLS =
  /^(querySelector|querySelectorAll|closest|matches|addEventListener|removeEventListener|dispatchEvent|getAttribute|setAttribute|removeAttribute|hasAttribute|getElementById|startsWith|endsWith|includes|indexOf|split|replace|replaceAll|join|matchMedia|readPref|writePref|readBool|writeBool|readNumber|removePref|call|on|off|emit|event|createElement|getItem|setItem|removeItem|toggle|add|remove|contains|error|warn|log|debug|info|Error|TypeError|RangeError|require|import|register|registerAliases|getPropertyValue|setProperty|ApiError|postMessage|fetch|get|has|set|delete|test|exec|match|RegExp|localeCompare|toLocaleString|format|Intl|send|open|request|watch)$/;

function calleeName(n: Node): string {
  const c = n.callee as Node | undefined;
  if (!c) return '';
  if (c.type === 'Identifier') return String(c.name);
  if (c.type === 'MemberExpression') {
    const p = c.property as Node;
    return p.type === 'Identifier' ? String(p.name) : '';
  }
  return '';
}

/** Prose string literals in an ESTree subtree, skipping positions that
 * are code (types, imports, comparisons, object keys, DOM and API calls). */
function scanJs(node: unknown, src: string, lines: string[], file: string, hits: Hit[], parents: Node[] = []): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) scanJs(x, src, lines, file, hits, parents);
    return;
  }
  const n = node as Node;
  if (typeof n.type !== 'string') return;
  if (n.type.startsWith('TS') || n.type === 'ImportDeclaration' || n.type === 'ExportAllDeclaration') return;
  if (n.type === 'ExportNamedDeclaration' && n.source) return;
  const parent = parents[parents.length - 1];
  const check = (text: string) => {
    if (!isProse(text)) return;
    const line = lineOf(src, n.start);
    if (ignored(lines, line)) return;
    hits.push({ file, line, text: text.trim().slice(0, 60) });
  };
  if (n.type === 'Literal' && typeof n.value === 'string') {
    if (parent) {
      if (parent.type === 'BinaryExpression' && ['===', '!==', '==', '!=', 'in'].includes(String(parent.operator))) return;
      if (parent.type === 'SwitchCase') return;
      if (parent.type === 'Property' && parent.key === n && !parent.computed) return;
      if (parent.type === 'MemberExpression') return;
      if ((parent.type === 'CallExpression' || parent.type === 'NewExpression') && CODE_CALLS.test(calleeName(parent))) return;
    }
    check(n.value);
    return;
  }
  if (n.type === 'TemplateLiteral') {
    if (parent && parent.type === 'TaggedTemplateExpression') return;
    if (parent && (parent.type === 'CallExpression' || parent.type === 'NewExpression') && CODE_CALLS.test(calleeName(parent))) {
      return;
    }
    const quasis = (n.quasis as Node[]).map((q) => String((q.value as { cooked?: string }).cooked ?? ''));
    const joined = quasis.join(' x ');
    if (quasis.some((q) => /\p{L}/u.test(q)) && isProse(joined.replace(/\s+/g, ' '))) check(joined);
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === 'start' || k === 'end' || k === 'loc' || k === 'type' || k === 'leadingComments' || k === 'trailingComments') continue;
    if (v && typeof v === 'object') scanJs(v, src, lines, file, hits, [...parents, n]);
  }
}

// Fields Go fills with English for the page to word by the key beside
// them (Agent.loginHintKey, installNoteKey: lib/i18n goMessage): shown
// as they are, they put English in the Chinese interface.
const GO_ENGLISH = new Set(['loginHint', 'installNote']);

/** Go's English fields rendered as they are in a template expression
 * (a call's arguments are not rendered as such: goMessage(key, english);
 * a conditional's test is not rendered). */
function scanGoEnglish(node: unknown, src: string, lines: string[], file: string, hits: Hit[]): void {
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  if (n.type === 'CallExpression' || n.type === 'NewExpression' || n.type === 'TaggedTemplateExpression') return;
  if (n.type === 'ConditionalExpression') {
    scanGoEnglish(n.consequent, src, lines, file, hits);
    scanGoEnglish(n.alternate, src, lines, file, hits);
    return;
  }
  if (n.type === 'MemberExpression' && !n.computed) {
    const p = n.property as Node;
    if (p.type === 'Identifier' && GO_ENGLISH.has(String(p.name))) {
      const line = lineOf(src, n.start);
      if (!ignored(lines, line)) hits.push({ file, line, text: `Go's English ${String(p.name)} shown as it is (word it with goMessage)` });
      return;
    }
  }
  if (n.type === 'LogicalExpression' || n.type === 'BinaryExpression' || n.type === 'TemplateLiteral') {
    for (const [k, v] of Object.entries(n)) {
      if (k === 'left' || k === 'right' || k === 'expressions') {
        for (const x of Array.isArray(v) ? v : [v]) scanGoEnglish(x, src, lines, file, hits);
      }
    }
  }
}

function scanTemplate(node: unknown, src: string, lines: string[], file: string, hits: Hit[], inComponent = false): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) scanTemplate(x, src, lines, file, hits, inComponent);
    return;
  }
  const n = node as Node;
  const push = (text: string, at: number) => {
    const line = lineOf(src, at);
    if (!ignored(lines, line)) hits.push({ file, line, text: text.trim().slice(0, 60) });
  };
  switch (n.type) {
    case 'Text': {
      const data = String(n.data ?? '');
      if (/\p{L}/u.test(data) && data.trim() && !NOT_PROSE.has(data.trim())) push(data, n.start);
      return;
    }
    case 'Comment':
      return;
    case 'ExpressionTag':
      scanJs(n.expression, src, lines, file, hits);
      scanGoEnglish(n.expression, src, lines, file, hits);
      return;
    case 'RegularElement':
    case 'SvelteElement': {
      if (n.name === 'style' || n.name === 'script' || n.name === 'code' || n.name === 'kbd') {
        // <code>/<kbd>: commands and keys; still scan their expressions.
        if (n.name === 'code' || n.name === 'kbd') scanTemplate(n.fragment, src, lines, file, hits, inComponent);
        return;
      }
      scanAttrs(n, src, lines, file, hits, false);
      scanTemplate(n.fragment, src, lines, file, hits, false);
      return;
    }
    case 'Component':
    case 'SvelteComponent':
      scanAttrs(n, src, lines, file, hits, true);
      scanTemplate(n.fragment, src, lines, file, hits, true);
      return;
  }
  for (const [k, v] of Object.entries(n)) {
    if (k === 'start' || k === 'end' || k === 'type') continue;
    if (k === 'expression' || k === 'test' || k === 'key') {
      scanJs(v, src, lines, file, hits);
      continue;
    }
    if (v && typeof v === 'object') scanTemplate(v, src, lines, file, hits, inComponent);
  }
}

function scanAttrs(el: Node, src: string, lines: string[], file: string, hits: Hit[], component: boolean): void {
  for (const a of (el.attributes as Node[]) ?? []) {
    if (a.type !== 'Attribute') {
      if (a.type === 'OnDirective' || a.type === 'BindDirective' || a.type === 'ClassDirective' || a.type === 'StyleDirective') continue;
      scanJs(a.expression, src, lines, file, hits);
      continue;
    }
    const name = String(a.name);
    if (CODE_ATTRS.has(name) || name.startsWith('data-') || name.startsWith('on')) continue;
    const text = component || TEXT_ATTRS.has(name);
    const values = a.value === true ? [] : Array.isArray(a.value) ? (a.value as Node[]) : [a.value as Node];
    for (const v of values) {
      if (v.type === 'Text') {
        const data = String(v.data ?? '');
        if (text && (component ? isProse(data) : /\p{L}/u.test(data)) && !ignored(lines, lineOf(src, v.start))) {
          hits.push({ file, line: lineOf(src, v.start), text: `${name}="${data.slice(0, 50)}"` });
        }
      } else if (v.type === 'ExpressionTag') {
        scanJs(v.expression, src, lines, file, hits);
        if (text) scanGoEnglish(v.expression, src, lines, file, hits);
      }
    }
  }
}

export function lint(file: string, src: string): Hit[] {
  const hits: Hit[] = [];
  const lines = src.split('\n');
  const rel = file;
  if (file.endsWith('.svelte')) {
    const ast = parse(src, { modern: true }) as unknown as { instance?: Node; module?: Node; fragment: Node };
    if (ast.instance) scanJs(ast.instance.content, src, lines, rel, hits);
    if (ast.module) scanJs(ast.module.content, src, lines, rel, hits);
    scanTemplate(ast.fragment, src, lines, rel, hits);
  } else {
    // A .ts module: parsed as a Svelte instance script so that one parser
    // (Svelte's, TypeScript included) reads both kinds of file.
    const wrapped = `<script lang="ts">${src.replace(/<\/script/g, '<\\/script')}</script>`;
    const ast = parse(wrapped, { modern: true }) as unknown as { instance?: Node };
    const off = '<script lang="ts">'.length;
    const pad = ' '.repeat(off) + src; // positions in `wrapped` map to `pad`
    if (ast.instance) scanJs(ast.instance.content, pad, [...lines], rel, hits);
  }
  return hits;
}

describe('interface text comes from the catalogue', () => {
  it('the heuristic tells prose from code', () => {
    for (const s of ['Stop', 'just now', 'Send a message…', '会话', 'Open folder', 'No results.']) expect(isProse(s), s).toBe(true);
    for (const s of ['Enter', '1px solid var(--border)', 'text/plain', 'notes:index', '.cm-content', 'mnote.locale', 'ArrowDown', 'sessionId', '']) {
      expect(isProse(s), s).toBe(false);
    }
  });

  it('finds hard-coded text in a component (so a clean run means something)', () => {
    const hits = lint(
      'components/Probe.svelte',
      `<script lang="ts">\n  const label = 'Delete note';\n</script>\n<button title="Close">Send</button>\n<input placeholder={busy ? 'Wait…' : m.x()} />\n<Dialog message="Are you sure?" />\n<div class="a b">{count}</div>\n`,
    );
    expect(hits.map((h) => h.text)).toEqual(['Delete note', 'title="Close"', 'Send', 'Wait…', 'message="Are you sure?"']);
  });

  it('finds Go’s English shown as it is (text from Go is worded by its key)', () => {
    const hits = lint(
      'components/Probe.svelte',
      `{#if agent.loginHint}<p>{agent.loginHint}</p>{/if}\n<span title={a.installNote}>{goMessage(a.installNoteKey, a.installNote)}</span>\n<i>{x ? a.loginHint : ''}</i>\n`,
    );
    expect(hits.map((h) => [h.line, h.text])).toEqual([
      [1, "Go's English loginHint shown as it is (word it with goMessage)"],
      [2, "Go's English installNote shown as it is (word it with goMessage)"],
      [3, "Go's English loginHint shown as it is (word it with goMessage)"],
    ]);
  });

  // Parses every source file: 1 s on an idle 2-core machine, 4-5 s on a busy
  // one, so a longer timeout than the default 5 s.
  it('no component, store or lib module has hard-coded text', () => {
    expect(Object.keys(SOURCES).length).toBeGreaterThan(80);
    const all = Object.entries(SOURCES).flatMap(([f, src]) => lint(f, src));
    const report = all.map((h) => `${h.file}:${h.line}: ${JSON.stringify(h.text)}`).join('\n');
    expect(all.length, `hard-coded text (put it in messages/<area>/{en,zh-CN}.json):\n${report}`).toBe(0);
  }, 30_000);
});
