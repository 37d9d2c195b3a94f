// Short-lived messages at the bottom of the window, optionally with one
// action (e.g. "Undo").

export interface Toast {
  id: number;
  message: string;
  level: 'info' | 'error';
  action?: { label: string; run: () => void | Promise<void> };
}

let ids = 0;

export class ToastStore {
  items: Toast[] = $state.raw([]);
  private timers = new Map<number, ReturnType<typeof setTimeout>>();

  show(t: Omit<Toast, 'id' | 'level'> & { level?: Toast['level']; timeoutMs?: number }): number {
    const id = ++ids;
    const toast: Toast = { id, message: t.message, level: t.level ?? 'info', action: t.action };
    this.items = [...this.items.slice(-3), toast];
    const ms = t.timeoutMs ?? (t.action ? 8000 : 4000);
    this.timers.set(id, setTimeout(() => this.dismiss(id), ms));
    return id;
  }

  error(message: string): number {
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
