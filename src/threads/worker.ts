import { Worker } from 'node:worker_threads';
import { brotliDecompressSync } from 'node:zlib';
import { youngGenerationOf } from '../core/young-generation.ts';

// Where the HTTP thread's code comes from, and threads kept for the next start.
//
// From the bundle: the bundle's own file, whose entry (src/entry.ts) serves as the
// thread when it starts as one. From the single executable, which has no file: the
// bundle's text, carried as an asset of the executable. From the sources (tests): the
// thread's own entry file.
//
// A thread loads the whole appliance's code once (a few hundred milliseconds of CPU)
// and then serves one appliance at a time (src/threads/http-thread.ts): a thread whose
// appliance stopped is kept a while, so that the next start in the same process (a
// restart, the tests' hundreds of appliances) builds its modules there instead of
// loading the code again. A kept thread holds nothing of the appliance it served.

declare const __WMS_BUNDLE__: boolean | undefined;

/** The single executable's asset that holds the bundle's text, brotli-compressed (scripts/build-binary.ts). */
export const BUNDLE_ASSET = 'wms.cjs.br';

/** The `workerData` key by which the bundle's entry knows it starts as the HTTP thread. */
export const HTTP_THREAD = 'wmsHttpThread';

/** How long a thread whose appliance stopped is kept for the next one (it costs memory, not CPU). */
const KEPT_MS = 60_000;
/** Threads kept at most. */
const KEPT_MAX = 2;

const kept: { worker: Worker; timer: NodeJS.Timeout }[] = [];

/**
 * Starts a thread ahead, while the appliance opens its database and builds its modules:
 * the thread loads its code on the other core meanwhile (a cold start waits for the
 * slower of the two, not for both in turn). Kept like a thread whose appliance stopped.
 */
export function prestartWorker(): void {
  if (kept.some((entry) => entry.worker.threadId >= 0)) return;
  giveBack(spawn());
}

/** Ends the threads kept (a process whose settings serve requests on its own thread). */
export function endKeptWorkers(): void {
  for (const { worker, timer } of kept.splice(0)) {
    clearTimeout(timer);
    void worker.terminate();
  }
}

/** A thread to serve an appliance: one kept, or a new one. */
export function takeWorker(): Worker {
  for (let entry = kept.pop(); entry; entry = kept.pop()) {
    clearTimeout(entry.timer);
    // One that ended meanwhile (threadId -1) is of no use.
    if (entry.worker.threadId >= 0) {
      entry.worker.ref();
      return entry.worker;
    }
  }
  return spawn();
}

/** A thread whose appliance stopped cleanly: kept for the next start, or ended. */
export function giveBack(worker: Worker): void {
  worker.unref();
  if (kept.length >= KEPT_MAX) {
    void worker.terminate();
    return;
  }
  const timer = setTimeout(() => {
    const at = kept.findIndex((entry) => entry.worker === worker);
    if (at >= 0) kept.splice(at, 1);
    void worker.terminate();
  }, KEPT_MS);
  timer.unref();
  kept.push({ worker, timer });
}

/** The HTTP thread's name, as `top -H` and /proc/<pid>/task/<tid>/comm show it. */
export const HTTP_THREAD_NAME = 'wms-http';

function spawn(): Worker {
  const options = { workerData: { [HTTP_THREAD]: true }, name: HTTP_THREAD_NAME, resourceLimits: youngGenerationOf('http') };
  if (typeof __WMS_BUNDLE__ !== 'undefined' && __WMS_BUNDLE__) {
    const sea = process.getBuiltinModule('node:sea') as { isSea(): boolean; getRawAsset(key: string): ArrayBuffer } | undefined;
    if (sea?.isSea()) return new Worker(brotliDecompressSync(Buffer.from(sea.getRawAsset(BUNDLE_ASSET))).toString('utf8'), { eval: true, ...options });
    return new Worker(__filename, options);
  }
  return new Worker(new URL('./http-thread.worker.ts', import.meta.url), options);
}
