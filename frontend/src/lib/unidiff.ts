// Unified diffs as Go writes them (workspace.UnifiedDiff: "--- a", "+++ b",
// "@@ -l,n +l,n @@" hunks), parsed into rows to render: one section per
// file, with line numbers, and a gap row between hunks.

import { m } from './i18n.svelte';
import type { DiffRow } from './linediff';

export interface DiffSection {
  /** The file names from the --- / +++ header ("" when absent). */
  from: string;
  to: string;
  rows: DiffRow[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/;

export function parseUnifiedDiff(text: string): DiffSection[] {
  const out: DiffSection[] = [];
  let cur: DiffSection | null = null;
  let oldNo = 0;
  let newNo = 0;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const section = () => {
    if (!cur) {
      cur = { from: '', to: '', rows: [], added: 0, removed: 0 };
      out.push(cur);
    }
    return cur;
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      cur = { from: l.slice(4).trim(), to: lines[i + 1].slice(4).trim(), rows: [], added: 0, removed: 0 };
      out.push(cur);
      i++;
      continue;
    }
    const h = HUNK.exec(l);
    if (h) {
      const s = section();
      oldNo = Number(h[1]);
      newNo = Number(h[3]);
      const where = h[5].trim();
      const line = m.editor_diff_line({ line: newNo });
      s.rows.push({ kind: 'gap', text: where ? `${line} · ${where}` : line });
      continue;
    }
    const s = section();
    if (l.startsWith('+')) {
      s.rows.push({ kind: 'add', newNo: newNo++, text: l.slice(1) });
      s.added++;
    } else if (l.startsWith('-')) {
      s.rows.push({ kind: 'del', oldNo: oldNo++, text: l.slice(1) });
      s.removed++;
    } else if (l.startsWith(' ')) {
      s.rows.push({ kind: 'ctx', oldNo: oldNo++, newNo: newNo++, text: l.slice(1) });
    } else if (l.startsWith('\\')) {
      // "\ No newline at end of file", the only such line diff writes.
      s.rows.push({ kind: 'gap', text: m.editor_diff_no_newline() });
    } else if (l !== '') {
      // Not diff syntax (a message around the diffs): shown as it is.
      s.rows.push({ kind: 'gap', text: l });
    }
  }
  return out;
}

/** The path a section is about: the header's name without Go's "a/", "b/", "disk/", "buffer/" prefixes. */
export function sectionPath(s: DiffSection): string {
  const name = s.to && s.to !== '/dev/null' ? s.to : s.from;
  return name.replace(/^(a|b|disk|buffer|turn|now|mine|theirs)\//, '');
}
