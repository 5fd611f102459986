import { pathArg } from '../args.ts';
import { bundle } from '../build.ts';

// The command line of the long forms (crash.ts, fuzz.ts run by hand).

/** `--bundle OTHER/dist/wms.cjs` to test another build; without it this tree is built and its bundle used (undefined). */
export async function bundleArg(): Promise<{ bundle?: string }> {
  const other = pathArg('--bundle');
  if (other !== undefined) return { bundle: other };
  await bundle();
  return {};
}
