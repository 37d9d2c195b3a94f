// Short-lived messages at the bottom of the window, optionally with one
// action (e.g. "Undo").
//
// A message (and an action's label) may be a function that returns it: it
// is then read each time it is shown, so a toast made from the catalogue
// (`() => m.app_deleted({ title })`) follows a switch of the interface
// language while it shows. Either way `toast.message` reads as a string.

/** Interface text: a string, or a function that makes it in the current locale. */
export type Text = string | (() => string);

/** The string of a Text, in the current locale. */
export function textOf(t: Text): string {
  return typeof t === 'function' ? t() : t;
}

export interface ToastAction {
  readonly label: string;
  run: () => void | Promise<void>;
}

export interface Toast {
  id: number;
  readonly message: string;
  level: 'info' | 'error';
  action?: ToastAction;
}

export interface ToastInput {
  message: Text;
  level?: Toast['level'];
  timeoutMs?: number;
  action?: { label: Text; run: () => void | Promise<void> };
}

let ids = 0;

export class ToastStore {
  items: Toast[] = $state.raw([]);
  private timers = new Map<number, ReturnType<typeof setTimeout>>();

  show(t: ToastInput): number {
    const id = ++ids;
    const message = t.message;
    const a = t.action;
    const toast: Toast = {
      id,
      get message() {
        return textOf(message);
      },
      level: t.level ?? 'info',
      action: a
        ? {
            get label() {
              return textOf(a.label);
            },
            run: a.run,
          }
        : undefined,
    };
    this.items = [...this.items.slice(-3), toast];
    const ms = t.timeoutMs ?? (t.action ? 8000 : 4000);
    this.timers.set(id, setTimeout(() => this.dismiss(id), ms));
    return id;
  }

  error(message: Text): number {
    return this.show({ message, level: 'error', timeoutMs: 7000 });
  }

  dismiss(id: number): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
    this.items = this.items.filter((x) => x.id !== id);
  }

  async runAction(id: number): Promise<void> {
    const t = this.items.find((x) => x.id === id);
    this.dismiss(id);
    await t?.action?.run();
  }
}
