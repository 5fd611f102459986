// The executable's entry point (bundle and single binary), for the process and for its HTTP thread.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { HTTP_THREAD } from './threads/worker.ts';

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
} else if (!isMainThread && (workerData as Record<string, unknown> | null)?.[HTTP_THREAD]) {
  // This bundle started as the appliance's HTTP thread (src/threads/worker.ts).
  void import('./threads/http-thread.ts').then(({ serveHttpThread }) => serveHttpThread(parentPort!));
} else {
  // Imported here, not at the top: a build for another Node is refused above before
  // anything loads the SQLite addon.
  void import('./cli.ts').then(({ main }) => main(process.argv.slice(2), process.env));
}
