import { useEffect } from 'preact/hooks';

// Runs a task now and then again `everyMs` after each run ends (never two at once),
// while the screen is mounted and the browser shows the tab: a panel with the monitor in
// a background tab asks the appliance nothing. Failures are the task's to show.

export function usePoll(task: () => Promise<void>, everyMs: number, deps: readonly unknown[]): void {
  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    let running = false;
    const run = async () => {
      timer = undefined;
      if (stopped || document.hidden) return;
      running = true;
      try {
        await task();
      } catch {
        // The task shows its own failures; the next run tries again.
      } finally {
        running = false;
        if (!stopped) timer = window.setTimeout(run, everyMs);
      }
    };
    const onVisibility = () => {
      if (document.hidden || running) return;
      clearTimeout(timer);
      void run();
    };
    void run();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, deps);
}
