// Questions the app asks in a small modal (closing an unsaved note,
// switching folders with unsaved notes): ask() resolves with the value of
// the button chosen, or "cancel" when the dialog is dismissed (Esc).
// One question at a time; a second waits for the first.

export interface ConfirmButton {
  label: string;
  value: string;
  kind?: 'primary' | 'danger' | 'plain';
}

export interface Question {
  id: number;
  title: string;
  message?: string;
  buttons: ConfirmButton[];
}

let ids = 0;

export class ConfirmStore {
  current: Question | null = $state.raw(null);
  private queue: { q: Question; resolve: (v: string) => void }[] = [];
  private resolveCurrent: ((v: string) => void) | null = null;

  ask(q: Omit<Question, 'id'>): Promise<string> {
    return new Promise((resolve) => {
      this.queue.push({ q: { ...q, id: ++ids }, resolve });
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
