import path from 'node:path';
import { bundle } from '../build.ts';

// The command line of the long forms (crash.ts, fuzz.ts run by hand).

/** A numeric option `--name N`, or the fallback. */
export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** `--bundle OTHER/dist/wms.cjs` to test another build; without it this tree is built and its bundle used (undefined). */
export async function bundleArg(): Promise<{ bundle?: string }> {
  const i = process.argv.indexOf('--bundle');
  if (i >= 0) return { bundle: path.resolve(process.argv[i + 1]!) };
  await bundle();
  return {};
}
