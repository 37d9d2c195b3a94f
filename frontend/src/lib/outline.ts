// The note's outline: its headings (ATX "# …" and Setext, read from the
// Markdown syntax tree; none inside front matter or code), the one whose
// section is being read (the cursor's while it is on screen, else the one
// at the top of the editor as it scrolls), and jumping to one.
// Into editorInfo for Outline.svelte.

import { ensureSyntaxTree, syntaxTree } from '@codemirror/language';
import type { EditorState } from '@codemirror/state';
import { EditorView, ViewPlugin, type ViewUpdate } from '@codemirror/view';
import { editorInfo, type Heading } from './editorinfo.svelte';

const HEADING = /^(ATXHeading|SetextHeading)([1-6])$/;

/** Where front matter (--- … --- at the very top) ends; 0 when there is none. */
export function frontMatterEnd(state: EditorState): number {
  const doc = state.doc;
  if (doc.lines < 2 || doc.line(1).text !== '---') return 0;
  for (let n = 2; n <= Math.min(doc.lines, 200); n++) {
    const t = doc.line(n).text;
    if (t === '---' || t === '...') return doc.line(n).to;
  }
  return 0;
}

/** The headings of a note, in order. */
export function headingsOf(state: EditorState): Heading[] {
  const tree = ensureSyntaxTree(state, state.doc.length, 200) ?? syntaxTree(state);
  const skip = frontMatterEnd(state);
  const out: Heading[] = [];
  tree.iterate({
    enter(n) {
      const mt = HEADING.exec(n.name);
      if (!mt) return n.name === 'Document' ? undefined : false; // headings are top-level blocks (or in quotes/lists: left out)
      if (n.from < skip) return false;
      const raw = state.sliceDoc(n.from, n.to);
      const text =
        mt[1] === 'ATXHeading'
          ? raw.replace(/^#{1,6}[ \t]*/, '').replace(/[ \t]+#+[ \t]*$/, '').replace(/^#+$/, '')
          : raw.split('\n').slice(0, -1).join(' ');
      out.push({ level: Number(mt[2]), text: text.trim(), from: n.from, line: state.doc.lineAt(n.from).number });
      return false;
    },
  });
  return out;
}

/** The index of the heading whose section holds pos; -1 above the first. */
export function sectionAt(headings: readonly Heading[], pos: number): number {
  let lo = 0;
  let hi = headings.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (headings[mid].from <= pos) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/** Puts the cursor on a heading and scrolls it to the top. */
export function jumpTo(view: EditorView, from: number): void {
  const pos = Math.min(from, view.state.doc.length);
  view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'start', yMargin: 6 }) });
  view.focus();
}

const DELAY = 200;

export const outline = ViewPlugin.fromClass(
  class {
    private timer: ReturnType<typeof setTimeout> | null = null;
    private frame = 0;
    private readonly onScroll = () => {
      if (!this.frame) this.frame = requestAnimationFrame(() => ((this.frame = 0), this.track()));
    };
    /** Reads the layout when CodeMirror allows it (not during an update). */
    private readonly measure = { key: this, read: () => this.sectionNow(), write: (at: number) => this.mark(at) };

    constructor(private readonly view: EditorView) {
      editorInfo.view = view;
      editorInfo.jump = (from) => jumpTo(view, from);
      this.read();
      view.scrollDOM.addEventListener('scroll', this.onScroll, { passive: true });
    }

    update(u: ViewUpdate) {
      // Read again when the text changed, and when the parser got further
      // (a long note opened on a busy machine is parsed in the background:
      // its later headings come after the first read).
      if (u.docChanged || u.startState.doc !== u.state.doc || syntaxTree(u.state) !== syntaxTree(u.startState)) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.read(), DELAY);
      } else if (u.viewportChanged || u.geometryChanged || u.selectionSet) this.onScroll();
    }

    private read() {
      this.timer = null;
      editorInfo.headings = headingsOf(this.view.state);
      this.track();
    }

    private track() {
      this.view.requestMeasure(this.measure);
    }

    private mark(at: number) {
      if (at !== editorInfo.current) editorInfo.current = at;
    }

    /** The section being read: the cursor's while it is on screen (a heading jumped to), else the one at the top of the editor. */
    private sectionNow(): number {
      const v = this.view;
      if (!v.dom.isConnected) return editorInfo.current;
      const top = v.scrollDOM.getBoundingClientRect().top - v.documentTop;
      const bottom = top + v.scrollDOM.clientHeight;
      const head = v.state.selection.main.head;
      const cursor = v.lineBlockAt(head);
      const pos = cursor.top >= top && cursor.bottom <= bottom ? head : top + 8 <= 0 ? 0 : v.lineBlockAtHeight(top + 8).from;
      return sectionAt(editorInfo.headings, pos);
    }

    destroy() {
      if (this.timer) clearTimeout(this.timer);
      if (this.frame) cancelAnimationFrame(this.frame);
      this.view.scrollDOM.removeEventListener('scroll', this.onScroll);
      if (editorInfo.view === this.view) {
        editorInfo.view = null;
        editorInfo.jump = null;
        editorInfo.headings = [];
        editorInfo.current = -1;
      }
    }
  },
);
