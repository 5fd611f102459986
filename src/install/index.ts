import { USAGE } from '../config.ts';
import { install } from './install.ts';
import { parseInstallOptions } from './options.ts';
import { Run } from './run.ts';
import { InstallError } from './system.ts';
import { uninstall } from './uninstall.ts';

/**
 * `wms install-service [options]`: puts this executable on the box as the systemd
 * service wms, or removes it. Bad options throw ConfigError (exit 2, like the
 * appliance's own flags); a step that fails stops the run with exit code 1, after the
 * steps already done were printed.
 */
export function installService(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = parseInstallOptions(argv);
  const run = new Run(options, (line) => process.stdout.write(`${line}\n`));
  try {
    if (options.uninstall) uninstall(run);
    else install(run);
  } catch (err) {
    if (!(err instanceof InstallError) && !(err as NodeJS.ErrnoException).code) throw err;
    process.stderr.write(`wms install-service: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
