import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { Toasts, type Toast } from '../../feedback.tsx';

// What became of the last action on this screen (created, refused and why), told in
// the shell's toast at the bottom of the screen. The forms sit deep in the panels: they
// report with `done`/`failed` here instead of passing a callback down through each.

export const outcome = signal<Toast | undefined>(undefined);

export const done = (message: string) => (outcome.value = { kind: 'done', message });
export const failed = (message: string) => (outcome.value = { kind: 'failed', message });

export function Outcome() {
  // The signal outlives the screen: what was told here is not told again on the next visit.
  useEffect(() => () => void (outcome.value = undefined), []);
  return <Toasts toast={outcome} />;
}
