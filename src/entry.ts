import { isMainThread, workerData } from 'node:worker_threads';

// The executable's entry point (bundle and single binary). The same code also runs as
// the log writer thread (src/core/log-store): a single binary has no other file to
// start a thread from. Each imports only what it needs.
declare const __WMS_NODE_ABI__: string | undefined;
const builtFor = typeof __WMS_NODE_ABI__ === 'string' ? __WMS_NODE_ABI__ : undefined;

if (builtFor !== undefined && builtFor !== process.versions.modules) {
  // The SQLite addon beside the bundle is built for the Node that built it; loaded into
  // another it would crash the process without a word.
  process.stderr.write(
    `wms: this build needs the Node.js it was built with (module ABI ${builtFor}); this is Node ${process.version} (ABI ${process.versions.modules}).\n` +
      'Start it with `npm start` (the pinned Node), `npx node dist/wms.cjs`, or use the single executable dist/wms.\n',
  );
  process.exit(1);
} else if (!isMainThread && (workerData as { role?: string } | null)?.role === 'log-writer') {
  void import('./core/log-store/writer.worker.ts');
} else {
  // Imported here, not at the top: the log writer thread, which starts from this same
  // file, then never loads (and keeps in its own heap) the modules of the appliance.
  void import('./main.ts').then(({ main }) => main(process.argv.slice(2), process.env));
}
