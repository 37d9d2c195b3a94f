// IME composition (Chinese pinyin, Japanese kana, Korean…): while a person
// composes, Enter commits the candidate, Space picks one, the arrows move
// in the candidate list and Esc cancels, all inside the IME. Those keys
// reach the page as keydown events with isComposing set (or, in some
// engines and for the keydown that starts or ends a composition, only as
// keyCode 229, "Process"). A handler that acts on such a key must bail out
// with `if (isComposing(e)) return;` before it sends, picks, submits,
// renames, closes or runs a shortcut.

/** A key event that belongs to an IME composition: never a shortcut, never Enter. */
export function isComposing(e: KeyboardEvent): boolean {
  return e.isComposing || e.keyCode === 229;
}
