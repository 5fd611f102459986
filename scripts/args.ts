import path from 'node:path';

// The command-line options of the benchmarks and scripts: `--name value`, each read
// where it is declared, with its default beside it.

/** The value after `name`; undefined when the option is not given. */
export function textArg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A number option; `fallback` when not given. */
export function numberArg(name: string, fallback: number): number {
  const value = textArg(name);
  return value === undefined ? fallback : Number(value);
}

/** A file or folder option, resolved against the working directory; undefined when not given. */
export function pathArg(name: string): string | undefined {
  const value = textArg(name);
  return value === undefined ? undefined : path.resolve(value);
}
