// The soak's window into the appliance's heap: the V8 inspector of the appliance
// process (started with `--inspect=127.0.0.1:<port>`), over its WebSocket. Three things
// only: Node's own memory figures, a full garbage collection (what is still alive after
// it is what the process holds; the rest is garbage not yet collected), and a heap
// snapshot to see what the live heap is made of.

export interface MemoryFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

interface Reply {
  id?: number;
  method?: string;
  params?: { chunk?: string };
  result?: { result?: { value?: unknown } };
  error?: { message: string };
}

export class Inspector {
  private readonly socket: WebSocket;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private chunks: string[] | undefined;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (e) => this.received(JSON.parse(String(e.data)) as Reply));
    socket.addEventListener('close', () => {
      for (const w of this.waiting.values()) w.reject(new Error('the inspector connection closed'));
      this.waiting.clear();
    });
  }

  /** Connects to the inspector listening on `port` (retries while the process starts). */
  static async connect(port: number, timeoutMs = 30_000): Promise<Inspector> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
        const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
        await new Promise<void>((resolve, reject) => {
          socket.addEventListener('open', () => resolve(), { once: true });
          socket.addEventListener('error', () => reject(new Error('inspector WebSocket failed')), { once: true });
        });
        return new Inspector(socket);
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`no inspector on port ${port}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** `process.memoryUsage()` in the appliance. */
  async memory(): Promise<MemoryFigures> {
    return JSON.parse(await this.evaluate('JSON.stringify(process.memoryUsage())')) as MemoryFigures;
  }

  /** An expression evaluated in the appliance's main context, its value as text. */
  async evaluate(expression: string): Promise<string> {
    const reply = await this.call('Runtime.evaluate', { expression, returnByValue: true });
    return String(reply.result?.result?.value);
  }

  /** A full, compacting garbage collection. */
  async collectGarbage(): Promise<void> {
    await this.call('HeapProfiler.collectGarbage');
  }

  /** A heap snapshot (V8's .heapsnapshot JSON; it collects garbage first). */
  async heapSnapshot(): Promise<string> {
    this.chunks = [];
    try {
      await this.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      return this.chunks.join('');
    } finally {
      this.chunks = undefined;
    }
  }

  close(): void {
    this.socket.close();
  }

  private call(method: string, params: Record<string, unknown> = {}): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  private received(message: Reply): void {
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') {
      this.chunks?.push(message.params!.chunk!);
      return;
    }
    if (message.id === undefined) return;
    const waiter = this.waiting.get(message.id);
    if (!waiter) return;
    this.waiting.delete(message.id);
    if (message.error) waiter.reject(new Error(message.error.message));
    else waiter.resolve(message);
  }
}
