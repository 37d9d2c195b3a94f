// GFM task-list items in a note's Markdown: where a line's box is, and the
// one-character edit that ticks or unticks it. The preview's checkboxes
// call this with the source line they were rendered from (and that line's
// text as it was then): a line that changed since, or that holds no box,
// is left alone.
//
// A task line is any nesting of block quotes (>) and list markers (-, *, +,
// 1. or 1)), each marker followed by a space or tab, then [ ], [x] or [X]
// followed by a space, a tab or the end of the line:
//
//   - [ ] a            1. [x] b           > * [ ] c         - > 2) [X] d

/** The box of a task line: col is the index of the character between the brackets. */
export interface TaskBox {
  col: number;
  checked: boolean;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

/** The task box of one line (no line break in it; a trailing \r is allowed); null when it is no task item. */
export function taskBox(line: string): TaskBox | null {
  let i = 0;
  let listed = false;
  for (;;) {
    while (isBlank(line[i])) i++;
    const c = line[i];
    if (c === '>') {
      i++;
      listed = false;
      continue;
    }
    if ((c === '-' || c === '*' || c === '+') && isBlank(line[i + 1])) {
      i += 2;
      listed = true;
      continue;
    }
    let j = i;
    while (j < line.length && j - i < 9 && line[j] >= '0' && line[j] <= '9') j++;
    if (j > i && (line[j] === '.' || line[j] === ')') && isBlank(line[j + 1])) {
      i = j + 2;
      listed = true;
      continue;
    }
    break;
  }
  if (!listed || line[i] !== '[' || line[i + 2] !== ']') return null;
  const mark = line[i + 1];
  if (mark !== ' ' && mark !== 'x' && mark !== 'X') return null;
  const after = line[i + 3];
  if (after !== undefined && !isBlank(after) && after !== '\r') return null;
  return { col: i + 1, checked: mark !== ' ' };
}

/** The edit that flips a line's box: replace the character at col with insert. */
export interface TaskEdit {
  col: number;
  insert: string;
  /** The state after the edit. */
  checked: boolean;
}

const noCR = (s: string) => (s.endsWith('\r') ? s.slice(0, -1) : s);

/**
 * The edit that ticks (or unticks) the task on this line; null when the
 * line holds no task or is not `expected` (the line as the preview saw it,
 * when given).
 */
export function toggleLine(line: string, expected?: string): TaskEdit | null {
  if (expected !== undefined && noCR(line) !== noCR(expected)) return null;
  const box = taskBox(line);
  if (!box) return null;
  return { col: box.col, insert: box.checked ? ' ' : 'x', checked: !box.checked };
}

/** A task toggled in a whole text: the new text and the offset of the one character changed. */
export interface TaskToggle {
  text: string;
  /** Offset (UTF-16) of the character replaced. */
  from: number;
  insert: string;
  checked: boolean;
}

/** The line (1-based) of text, without its line break, and where it starts; null past the end. */
export function lineOf(text: string, line: number): { from: number; text: string } | null {
  if (!Number.isInteger(line) || line < 1) return null;
  let from = 0;
  for (let n = 1; n < line; n++) {
    const nl = text.indexOf('\n', from);
    if (nl < 0) return null;
    from = nl + 1;
  }
  const end = text.indexOf('\n', from);
  return { from, text: noCR(text.slice(from, end < 0 ? text.length : end)) };
}

/**
 * Ticks or unticks the task at line (1-based) of text: only the character
 * between its brackets changes (line breaks, CRLF included, stay as they
 * are). Null, and no edit, when that line is not a task or is no longer
 * `expected`.
 */
export function toggleTask(text: string, line: number, expected?: string): TaskToggle | null {
  const l = lineOf(text, line);
  if (!l) return null;
  const e = toggleLine(l.text, expected);
  if (!e) return null;
  const from = l.from + e.col;
  return { text: text.slice(0, from) + e.insert + text.slice(from + 1), from, insert: e.insert, checked: e.checked };
}
