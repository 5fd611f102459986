import { signal } from '@preact/signals';

// Now, to the quarter minute: ages ("5 min") and the end of a shelving move on with it
// (a shelved alarm comes back when its time is up; no event says so).

export const now = signal(Date.now());
setInterval(() => {
  now.value = Date.now();
}, 15_000);
