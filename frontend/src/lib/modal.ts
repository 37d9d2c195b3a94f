// Keyboard behaviour of a modal dialog, as a Svelte attachment: Esc closes
// it (and goes no further: a running turn is not stopped), Tab stays
// inside, and focus goes back where it was when the dialog goes. Keys of an
// IME composition (Esc cancels the candidate, Tab…) are the IME's, not the
// dialog's.

import { isComposing } from './ime';

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), summary, a[href]';

export function modalKeys(onEscape: () => void): (node: HTMLElement) => () => void {
  return (node) => {
    const restore = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const onkeydown = (e: KeyboardEvent) => {
      if (isComposing(e)) return;
      if (e.key === 'Escape') {
        if (e.defaultPrevented) return; // something inside (a menu) used it
        e.preventDefault();
        e.stopPropagation();
        onEscape();
      } else if (e.key === 'Tab') {
        const f = [...node.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
        const all = f.length ? f : [...node.querySelectorAll<HTMLElement>(FOCUSABLE)];
        if (!all.length) return;
        const first = all[0];
        const last = all[all.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      }
    };
    // A button that went disabled while it worked drops the focus to the
    // body: Esc there still closes the dialog (and stops no turn: this runs
    // before the window's own handler).
    const onwindow = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || isComposing(e)) return;
      if (e.target !== document.body && e.target !== document.documentElement) return;
      e.preventDefault();
      e.stopPropagation();
      onEscape();
    };
    node.addEventListener('keydown', onkeydown);
    window.addEventListener('keydown', onwindow, true);
    return () => {
      node.removeEventListener('keydown', onkeydown);
      window.removeEventListener('keydown', onwindow, true);
      if (restore?.isConnected) restore.focus();
    };
  };
}
