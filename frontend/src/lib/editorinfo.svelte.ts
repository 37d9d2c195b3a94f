// What the editor's status bar and outline show about the note on screen:
// its headings and the one whose section is at the top of the editor, the
// words and characters of the note and of the selection. Set by the
// CodeMirror plugins of outline.ts and wordcount.ts (one editor view shows
// at a time); read by Outline.svelte and WordCount.svelte.

import type { EditorView } from '@codemirror/view';
import type { Counts } from './cjk';
import { readBool, writeBool } from './prefs';

/** A heading of the note: its level (1–6), text, where it starts and its line (1-based). */
export interface Heading {
  level: number;
  text: string;
  from: number;
  line: number;
}

const OUTLINE_KEY = 'mnote.outline';

class EditorInfo {
  headings: Heading[] = $state.raw([]);
  /** The index in headings of the section at the top of the editor; -1 above the first. */
  current = $state(-1);
  counts: Counts = $state.raw({ words: 0, chars: 0 });
  /** The selection's counts; null when nothing is selected. */
  selection: Counts | null = $state.raw(null);
  /** The outline panel shows. */
  outlineOpen = $state(readBool(OUTLINE_KEY, false));
  /** The view the plugins report from (not reactive). */
  view: EditorView | null = null;
  /** Puts the cursor on a heading (its from) and scrolls it to the top; set by outline.ts (so the outline's component loads no CodeMirror). */
  jump: ((from: number) => void) | null = null;

  setOutlineOpen(on: boolean): void {
    this.outlineOpen = on;
    writeBool(OUTLINE_KEY, on);
  }
}

export const editorInfo = new EditorInfo();
