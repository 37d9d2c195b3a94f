// Questions the app asks in a small modal (closing an unsaved note,
// switching folders with unsaved notes): ask() resolves with the value of
// the button chosen, or "cancel" when the dialog is dismissed (Esc).
// One question at a time; a second waits for the first. Its texts may be
// functions (stores/toasts.svelte.ts Text): read while the dialog shows,
// they follow a switch of the interface language.

import { textOf, type Text } from './toasts.svelte';

export interface ConfirmButton {
  label: string;
  value: string;
  kind?: 'primary' | 'danger' | 'plain';
}

export interface Question {
  id: number;
  readonly title: string;
  readonly message?: string;
  buttons: ConfirmButton[];
}

/** What ask() takes: a Question whose texts may be functions. */
export interface QuestionInput {
  title: Text;
  message?: Text;
  buttons: { label: Text; value: string; kind?: ConfirmButton['kind'] }[];
}

function live(q: QuestionInput, id: number): Question {
  const { title, message } = q;
  const out: Question = {
    id,
    get title() {
      return textOf(title);
    },
    buttons: q.buttons.map((b) => {
      const { label } = b;
      return {
        get label() {
          return textOf(label);
        },
        value: b.value,
        ...(b.kind ? { kind: b.kind } : {}),
      };
    }),
  };
  // A getter (not spread: spreading would read it once, now).
  if (message !== undefined) Object.defineProperty(out, 'message', { get: () => textOf(message), enumerable: true });
  return out;
}

let ids = 0;

export class ConfirmStore {
  current: Question | null = $state.raw(null);
  private queue: { q: Question; resolve: (v: string) => void }[] = [];
  private resolveCurrent: ((v: string) => void) | null = null;

  ask(q: QuestionInput): Promise<string> {
    return new Promise((resolve) => {
      this.queue.push({ q: live(q, ++ids), resolve });
      if (!this.current) this.next();
    });
  }

  answer(value: string): void {
    const r = this.resolveCurrent;
    this.resolveCurrent = null;
    this.current = null;
    r?.(value);
    this.next();
  }

  private next(): void {
    const n = this.queue.shift();
    if (!n) return;
    this.current = n.q;
    this.resolveCurrent = n.resolve;
  }
}
