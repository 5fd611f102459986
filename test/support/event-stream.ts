// An event stream read over real HTTP the way a browser's EventSource reads it: the
// raw bytes parsed into events (id, event, data), comments and retry lines skipped.

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

  /** Waits until `predicate` holds for the events so far (or the stream ends, or 5 s pass). */
  async until(predicate: (events: SseEvent[]) => boolean, timeoutMs = 5000): Promise<SseEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.events)) {
      if (this.ended) throw new Error(`stream ended; events: ${JSON.stringify(this.events)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; events: ${JSON.stringify(this.events)}`);
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

  /** Until the stream ended (the server closed it). */
  async ends(timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended && Date.now() < deadline) await new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.ended) throw new Error('the stream is still open');
  }

  close(): void {
    this.controller.abort();
  }
}

