// Full-text search over sessions (sessions.search), debounced; answers to
// older queries are dropped.

import { ApiError, type Client } from '../api';
import type { Hit } from '../api/types';

export class SearchStore {
  query = $state('');
  hits: Hit[] = $state.raw([]);
  loading = $state(false);
  error: ApiError | null = $state.raw(null);
  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly client: Client,
    private readonly delayMs = 150,
  ) {}

  get active(): boolean {
    return this.query.trim() !== '';
  }

  setQuery(q: string): void {
    this.query = q;
    if (this.timer) clearTimeout(this.timer);
    if (!q.trim()) {
      this.seq++;
      this.hits = [];
      this.loading = false;
      this.error = null;
      return;
    }
    this.loading = true;
    this.timer = setTimeout(() => void this.run(), this.delayMs);
  }

  clear(): void {
    this.setQuery('');
  }

  async run(): Promise<void> {
    const q = this.query.trim();
    const n = ++this.seq;
    if (!q) return;
    this.loading = true;
    try {
      const hits = await this.client.sessions.search(q, 50);
      if (n !== this.seq) return;
      this.hits = hits;
      this.error = null;
    } catch (e) {
      if (n !== this.seq) return;
      this.hits = [];
      this.error = ApiError.from(e);
    } finally {
      if (n === this.seq) this.loading = false;
    }
  }
}
