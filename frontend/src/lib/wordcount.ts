// The note's and the selection's words and characters (cjk.ts counts them:
// each CJK character a word, as Chinese writers count), into editorInfo
// for the status bar. Counted after typing pauses, so a keystroke in a
// long note never waits for it.

import { ViewPlugin, type EditorView, type ViewUpdate } from '@codemirror/view';
import { countText } from './cjk';
import { editorInfo } from './editorinfo.svelte';

/** Typing pauses this long before the note is counted again (ms). */
const DOC_DELAY = 250;
const SEL_DELAY = 80;

export const wordCount = ViewPlugin.fromClass(
  class {
    private docTimer: ReturnType<typeof setTimeout> | null = null;
    private selTimer: ReturnType<typeof setTimeout> | null = null;

    constructor(private readonly view: EditorView) {
      editorInfo.view = view;
      this.countDoc();
      this.countSel();
    }

    update(u: ViewUpdate) {
      if (u.docChanged || u.startState.doc !== u.state.doc) {
        if (this.docTimer) clearTimeout(this.docTimer);
        this.docTimer = setTimeout(() => this.countDoc(), DOC_DELAY);
      }
      if (u.selectionSet || u.docChanged) {
        if (this.selTimer) clearTimeout(this.selTimer);
        this.selTimer = setTimeout(() => this.countSel(), SEL_DELAY);
      }
    }

    private countDoc() {
      this.docTimer = null;
      editorInfo.counts = countText(this.view.state.doc.toString());
    }

    private countSel() {
      this.selTimer = null;
      const r = this.view.state.selection.main;
      editorInfo.selection = r.empty ? null : countText(this.view.state.sliceDoc(r.from, r.to));
    }

    destroy() {
      if (this.docTimer) clearTimeout(this.docTimer);
      if (this.selTimer) clearTimeout(this.selTimer);
      if (editorInfo.view === this.view) {
        editorInfo.view = null;
        editorInfo.jump = null;
      }
    }
  },
);
