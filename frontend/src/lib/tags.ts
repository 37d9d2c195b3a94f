// Tags written in a note's text (#标签), found the way the notes index
// finds them (notes/tags.go, inlineTags): a # at the start of a line or
// after a space or an opening bracket or comma, then letters or digits of
// any script and _ - / — not only digits (#1 is an issue number), not in a
// `code span`, a trailing / left out. A heading's "# " is no tag: a space
// follows its #.

/** A tag of one line: [from, to) spans the # and the name. */
export interface LineTag {
  from: number;
  to: number;
  tag: string;
}

const TAG_CHAR = /[\p{L}\p{N}\p{Mn}_\-/]/u;
const BEFORE = /[\s(（[【,，、;；]/u;

function isTagChar(ch: string): boolean {
  return TAG_CHAR.test(ch);
}

/** Whether s is a tag's name: tag characters, not only digits, no / at an end. */
export function validTag(s: string): boolean {
  if (!s || s.startsWith('/') || s.endsWith('/')) return false;
  let digits = true;
  for (const ch of s) {
    if (!isTagChar(ch)) return false;
    if (!/\p{N}/u.test(ch)) digits = false;
  }
  return !digits;
}

/** Every tag of one line, in order. */
export function tagsInLine(line: string): LineTag[] {
  const out: LineTag[] = [];
  let code = 0; // the open code span's backtick run, 0 outside one
  for (let i = 0; i < line.length; ) {
    const c = line[i];
    if (c === '`') {
      let n = 0;
      while (line[i + n] === '`') n++;
      if (code === 0) {
        if (line.indexOf('`'.repeat(n), i + n) >= 0) code = n;
      } else if (code === n) code = 0;
      i += n;
      continue;
    }
    if (c !== '#' || code !== 0) {
      i++;
      continue;
    }
    if (i > 0) {
      if (!BEFORE.test(line[i - 1])) { // every character BEFORE names is one UTF-16 unit
        i++;
        continue;
      }
    }
    let j = i + 1;
    while (j < line.length) {
      const ch = String.fromCodePoint(line.codePointAt(j) ?? 0);
      if (!isTagChar(ch)) break;
      j += ch.length;
    }
    let end = j;
    while (end > i + 1 && line[end - 1] === '/') end--;
    const tag = line.slice(i + 1, end);
    if (validTag(tag)) out.push({ from: i, to: end, tag });
    i = j === i + 1 ? j + 1 : j;
  }
  return out;
}

/**
 * The tag being typed before the cursor (the text of its line before it):
 * a # where a tag may start and at least one tag character after it; from
 * is where the name starts (after #). Null elsewhere.
 */
export function tagCompletion(before: string): { query: string; from: number } | null {
  const m = /(^|[\s(（[【,，、;；])#([\p{L}\p{N}\p{Mn}_\-/]+)$/u.exec(before);
  if (!m) return null;
  const from = before.length - m[2].length;
  // Not in a code span, not only digits: what the index would take as a tag.
  return tagsInLine(before).some((t) => t.from === from - 1) ? { query: m[2], from } : null;
}
