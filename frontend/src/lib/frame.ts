// Runs a callback at most once per animation frame, however often it is
// asked for. Falls back to a 16 ms timer where there is no
// requestAnimationFrame (tests, workers).

export type Scheduler = (cb: () => void) => void;

export const rafScheduler: Scheduler = (cb) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => cb());
  else setTimeout(cb, 16);
};

export class FrameBatcher {
  private pending = false;

  constructor(
    private readonly run: () => void,
    private readonly schedule: Scheduler = rafScheduler,
  ) {}

  /** Asks for a run in the next frame (once, however often asked). */
  request(): void {
    if (this.pending) return;
    this.pending = true;
    this.schedule(() => {
      if (!this.pending) return;
      this.pending = false;
      this.run();
    });
  }

  /** Runs now if a run is pending (e.g. before replacing the state). */
  flush(): void {
    if (!this.pending) return;
    this.pending = false;
    this.run();
  }

  cancel(): void {
    this.pending = false;
  }
}
