import module from 'node:module';
import { parentPort } from 'node:worker_threads';

// The HTTP thread's entry when it runs from the sources (the bundle's is src/entry.ts).
// Node's compile cache keeps the sources' compiled (and type-stripped) code, so that a
// second thread, or the next test process, does not compile them again.
module.enableCompileCache?.();
const { serveHttpThread } = await import('./http-thread.ts');
serveHttpThread(parentPort!);
