// The appliance's live event stream as a client sees it: `GET /v1/events?ticket=…` (a
// ticket from `POST /v1/events/tickets`), narrowed to the types asked for; each event
// handed on with the moment its block was read (epochNow of plc.ts).

import http from 'node:http';
import type { Appliance } from '../bench-plc/appliance.ts';
import { epochNow } from './plc.ts';

interface StreamedEvent {
  id: number;
  type: string;
  at: string;
  data: Record<string, unknown>;
}

export class EventStream {
  private req: http.ClientRequest | undefined;
  private buffer = '';
  ended = false;

  private readonly onEvent: (event: StreamedEvent, receivedAt: number) => void;

  constructor(onEvent: (event: StreamedEvent, receivedAt: number) => void) {
    this.onEvent = onEvent;
  }

  async open(app: Appliance, types: string): Promise<void> {
    const { ticket } = (await app.api('POST', '/v1/events/tickets')) as { ticket: string };
    await new Promise<void>((resolve, reject) => {
      this.req = http.get(`${app.url}/v1/events?ticket=${ticket}&types=${encodeURIComponent(types)}`, { headers: { Accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`event stream: ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (text: string) => this.received(text));
        res.on('end', () => (this.ended = true));
        res.on('error', () => (this.ended = true));
        resolve();
      });
      this.req.on('error', (err) => (this.ended ? undefined : reject(err)));
    });
  }

  private received(text: string): void {
    const receivedAt = epochNow();
    this.buffer += text;
    let end;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = block.split('\n').find((line) => line.startsWith('data:'));
      if (!data) continue; // a comment (keep-alive)
      this.onEvent(JSON.parse(data.slice(5)) as StreamedEvent, receivedAt);
    }
  }

  close(): void {
    this.ended = true;
    this.req?.destroy();
  }
}
