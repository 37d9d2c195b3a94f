// A shared clock for live durations: ticks once a second while at least one
// component reads it through `useNow()`.

class Clock {
  now = $state(Date.now());
  private users = 0;
  private timer: ReturnType<typeof setInterval> | null = null;

  acquire(): () => void {
    if (this.users++ === 0) {
      this.now = Date.now();
      this.timer = setInterval(() => (this.now = Date.now()), 1000);
    }
    return () => {
      if (--this.users === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }
}

export const clock = new Clock();
