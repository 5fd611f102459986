import { bundle } from '../../scripts/build.ts';

// The CLI and start-up tests run the real bundle, so it is built once per run.
export default async function setup(): Promise<void> {
  await bundle();
}
