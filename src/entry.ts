import { isMainThread, workerData } from 'node:worker_threads';
import { main } from './main.ts';

// The executable's entry point (bundle and single binary). The same code also runs as
// the log writer thread (src/core/log-store): a single binary has no other file to
// start a thread from.
if (!isMainThread && (workerData as { role?: string } | null)?.role === 'log-writer') {
  void import('./core/log-store/writer.worker.ts');
} else {
  void main(process.argv.slice(2), process.env);
}
