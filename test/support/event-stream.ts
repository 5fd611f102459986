import net from 'node:net';

// An event stream read over real HTTP the way a browser's EventSource reads it: the
// raw bytes parsed into events (id, event, data), comments and retry lines skipped.
// And one read over a raw socket that reads only when told to (RawEventStream).

/** How long a wait on a stream may take: a busy box (a second suite beside this one) needs seconds for what takes milliseconds. */
const WAIT_MS = 30_000;

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** An open event stream: its events as they arrive, parsed from the raw bytes. */
export class EventStream {
  readonly events: SseEvent[] = [];
  readonly raw: string[] = [];
  ended = false;
  private readonly controller = new AbortController();
  private waiters: Array<() => void> = [];

  /** Opens `url` with these headers (`Authorization` for a token; none for a ticket URL). */
  static async open(url: string, headers: Record<string, string> = {}): Promise<{ stream: EventStream; response: Response }> {
    const stream = new EventStream();
    const response = await fetch(url, { headers, signal: stream.controller.signal });
    if (response.ok) void stream.pump(response);
    return { stream, response };
  }

  private async pump(response: Response): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body!) {
        const text = decoder.decode(chunk as Uint8Array, { stream: true });
        this.raw.push(text);
        buffer += text;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            if (colon <= 0) continue; // comments (keep-alive) and blank lines
            const field = line.slice(0, colon) as keyof SseEvent | 'retry';
            if (field === 'retry') continue;
            event[field] = line.slice(colon + 1).trimStart();
          }
          if (Object.keys(event).length) this.events.push(event);
        }
        this.wake();
      }
    } catch {
      // aborted by close()
    }
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /**
   * Waits until `predicate` holds for the events so far; fails when the stream ends first
   * or after `timeoutMs` (the suite's deadline for a busy box, as `expect.poll`'s).
   */
  async until(predicate: (events: SseEvent[]) => boolean, timeoutMs = WAIT_MS): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events)) {
      if (this.ended) throw new Error(`stream ended; ${this.received()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms; ${this.received()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.events;
  }

  /** What came so far, for a failure: how many events and the last few (a replay's thousands would drown the report). */
  private received(): string {
    const last = this.events.slice(-5);
    return `${this.events.length} events${this.events.length > last.length ? ', the last 5' : ''}: ${JSON.stringify(last)}`;
  }

  /** Until the stream ended (the server closed it). */
  async ends(timeoutMs = WAIT_MS): Promise<void> {
    await this.until(() => false, timeoutMs).catch((err: Error) => {
      if (!this.ended) throw new Error(`the stream is still open: ${err.message}`);
    });
  }

  close(): void {
    this.controller.abort();
  }
}

/**
 * A stream client on a raw socket that reads only while told to. It starts paused: its
 * socket buffers fill up and the server has to wait for it, as for a client on a slow
 * or stalled link. It keeps the ids of the events it received, in the order they came.
 */
export class RawEventStream {
  readonly ids: number[] = [];
  /** Where an `event: reset` came: how many ids had come before it. */
  readonly resets: number[] = [];
  closed = false;
  private partial = '';
  private readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
  }

  /**
   * Sends `GET url` with these headers (`Last-Event-ID`, `Authorization`) and reads
   * nothing yet; over the Unix socket `socketPath` instead of TCP when one is given.
   */
  static async open(url: string, headers: Record<string, string> = {}, socketPath?: string): Promise<RawEventStream> {
    const target = new URL(url);
    const socket = socketPath === undefined ? net.connect(Number(target.port), target.hostname) : net.connect(socketPath);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const stream = new RawEventStream(socket);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => stream.received(chunk));
    socket.on('close', () => (stream.closed = true));
    socket.on('error', () => {});
    socket.pause();
    const lines = Object.entries({ Host: target.host, Accept: 'text/event-stream', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\n${lines.join('')}\r\n`);
    return stream;
  }

  private received(chunk: string): void {
    // Line by line: the chunk headers of the HTTP body are lines of their own (the server writes whole frames).
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('id: ')) this.ids.push(Number(line.slice(4)));
      else if (line === 'event: reset') this.resets.push(this.ids.length);
    }
  }

  /** Reads from now on (a closed connection shows as `closed` only once the client reads). */
  read(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }
}
