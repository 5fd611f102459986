import pino from 'pino';

// pino core only: JSON lines to stdout for journald or a container runtime. No
// transports (they need worker files a single binary does not carry).

export type Logger = pino.Logger;

interface LogOptions {
  level: string;
  /** Where the lines go; stdout when absent. Tests pass a stream to read them. */
  destination?: pino.DestinationStream;
}

/** Standard output, written asynchronously (the lines of both threads go there, src/threads). */
export function stdoutDestination(): pino.DestinationStream {
  return pino.destination({ fd: 1, sync: false });
}

export function createLogger(options: LogOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { app: 'wms' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? stdoutDestination(),
  );
}
