// The executable's entry point (bundle and single binary), for the process and for its HTTP thread.
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { CONVEYOR_NODE_OPTIONS } from './core/young-generation.ts';
import { HTTP_THREAD, prestartWorker } from './threads/worker.ts';

declare const __WMS_NODE_ABI__: string | undefined;
const builtFor = typeof __WMS_NODE_ABI__ === 'string' ? __WMS_NODE_ABI__ : undefined;

if (builtFor !== undefined && builtFor !== process.versions.modules) {
  // The SQLite addon beside the bundle is built for the Node that built it; loaded into
  // another it would crash the process without a word.
  process.stderr.write(
    `wms: this build needs the Node.js it was built with (module ABI ${builtFor}); this is Node ${process.version} (ABI ${process.versions.modules}).\n` +
      `Start it with \`npm start\` (the pinned Node), \`npx node ${CONVEYOR_NODE_OPTIONS.join(' ')} dist/wms.cjs\`, or use the single executable dist/wms.\n`,
  );
  process.exit(1);
} else if (!isMainThread && (workerData as Record<string, unknown> | null)?.[HTTP_THREAD]) {
  // This bundle started as the appliance's HTTP thread (src/threads/worker.ts).
  void import('./threads/http-thread.ts').then(({ serveHttpThread }) => serveHttpThread(parentPort!));
} else {
  const argv = process.argv.slice(2);
  // A start boots the HTTP thread first thing: it loads and initialises the appliance's
  // code on the other core while this thread does the same (cli.ts lets it go when the
  // settings turn it off).
  if (startsTheAppliance(argv)) prestartWorker();
  // Imported here, not at the top: a build for another Node is refused above before
  // anything loads the SQLite addon.
  void import('./cli.ts').then(({ main }) => main(argv, process.env));
}

/** Whether the command line starts the appliance: no subcommand, and none of the flags that do something else (cli.ts). */
function startsTheAppliance(argv: readonly string[]): boolean {
  if (argv[0] === 'simulate' || argv[0] === 'install-service') return false;
  return !argv.some((arg) => /^(--help|-h|--version|-v|--print-config|--restore)(=|$)/.test(arg));
}
