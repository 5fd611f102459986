import { expect } from 'vitest';
import { ConfigError } from '../../src/config.ts';

/** Runs `fn`, expects a ConfigError and returns its message (asserted to be one line: the operator reads it as is). */
export function configError(fn: () => unknown): string {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected a ConfigError').toBeInstanceOf(ConfigError);
  const message = (caught as Error).message;
  expect(message).not.toMatch(/[\r\n]/);
  return message;
}
