// Chinese (and Japanese) text in Markdown: which characters are "CJK",
// how a paragraph's soft line breaks join, and how words are counted.
//
// The rule is the same as the Go renderer's (internal/inertmd, cjk.go):
// a soft line break between two CJK characters joins with nothing
// ("命中率。↵第一次" → "命中率。第一次"), any other with a space. Hangul is
// not in the set: Korean puts spaces between words, so its breaks join
// with a space as Latin ones do.

/** The CJK code point ranges (inclusive): ideographs, kana, CJK punctuation, fullwidth forms. */
const RANGES: readonly (readonly [number, number])[] = [
  [0x2e80, 0x2fdf], // CJK radicals, Kangxi radicals
  [0x2ff0, 0x303f], // ideographic description, CJK symbols and punctuation (。、「」…)
  [0x3040, 0x30ff], // Hiragana, Katakana
  [0x3100, 0x312f], // Bopomofo
  [0x3190, 0x31ff], // Kanbun, Bopomofo extended, CJK strokes, Katakana extensions
  [0x3200, 0x33ff], // enclosed CJK letters, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe30, 0xfe4f], // CJK compatibility forms
  [0xff00, 0xff9f], // fullwidth forms (，！？：), halfwidth Katakana
  [0xffe0, 0xffef], // fullwidth signs
  [0x20000, 0x3ffff], // CJK extensions B–H, compatibility supplement
];

/** Whether the code point is a CJK character (see RANGES). */
export function isCJK(cp: number): boolean {
  if (cp < 0x2e80) return false;
  for (const [lo, hi] of RANGES) if (cp >= lo && cp <= hi) return true;
  return false;
}

/** The last code point of s (NaN when empty). */
function lastCP(s: string): number {
  if (!s) return NaN;
  const c = s.charCodeAt(s.length - 1);
  if (c >= 0xdc00 && c <= 0xdfff && s.length > 1) return s.codePointAt(s.length - 2) ?? c;
  return c;
}

/** The first code point of s (NaN when empty). */
function firstCP(s: string): number {
  return s ? (s.codePointAt(0) ?? NaN) : NaN;
}

/** Whether a soft line break between before and after joins with nothing (both CJK). */
export function joinsTight(before: string, after: string): boolean {
  return isCJK(lastCP(before)) && isCJK(firstCP(after));
}

/**
 * A paragraph's text with its soft line breaks joined: nothing between two
 * CJK characters, a space otherwise (the line's trailing and the next line's
 * leading spaces fold into the break).
 */
export function joinLines(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*/g, (br, at: number, s: string) =>
    joinsTight(s.slice(0, at), s.slice(at + br.length)) ? '' : ' ',
  );
}

// ---- counting ------------------------------------------------------------------

export interface Counts {
  /** Words: each CJK ideograph or kana one, plus runs of letters and digits (Latin, Hangul, …). */
  words: number;
  /** Characters, spaces included, line breaks not. */
  chars: number;
}

// A CJK character that is a word by itself (ideographs, kana, 々 〇 ー), not punctuation;
// words of other scripts are runs of letters, marks and digits (not CJK), joined
// within a word by ' ’ - . (don't, e-mail, 3.14).
const CJK_CHAR = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3005\\u3007\\u30fc';
const LETTER = `(?:(?![${CJK_CHAR}])[\\p{L}\\p{M}\\p{N}])`;
const TOKEN = new RegExp(`[${CJK_CHAR}]|${LETTER}+(?:['’\\-.]${LETTER}+)*`, 'gu');

/** Counts words and characters the way Chinese writers count them (see Counts). */
export function countText(text: string): Counts {
  let words = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.exec(text)) words++;
  let chars = 0;
  for (const ch of text) if (ch !== '\n' && ch !== '\r') chars++;
  return { words, chars };
}
