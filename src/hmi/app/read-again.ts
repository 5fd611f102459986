// A read the shell repeats on many occasions (a timer, an event, a screen asking): a call
// while one is under way does not start a second beside it, but has the one under way read
// once more after it, so that what is shown is never older than the last call.

/** `read` wrapped so: the returned function's promise settles once the reads it asked for are done. */
export function readAgain(read: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let again = false;
  return () => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await read();
      } while (again);
      running = undefined;
    })();
    return running;
  };
}
