// The bare node:http server of the mixed-load benchmark, its own process: answers every
// request with exactly the status, headers and body bytes of one appliance reply (a
// location read by coordinate), read from the JSON file given. No routing, no token,
// no SQLite: the floor a GET by coordinate is compared with.
//
//   node scripts/bench-mixed/bare-http.ts <reply.json>   → prints "bare <port>"

import http from 'node:http';
import { readFileSync } from 'node:fs';

const reply = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { status: number; headers: Record<string, string>; body: string };
const body = Buffer.from(reply.body);
http
  .createServer((_req, res) => {
    res.writeHead(reply.status, reply.headers);
    res.end(body);
  })
  .listen(0, '127.0.0.1', function (this: http.Server) {
    console.log(`bare ${(this.address() as { port: number }).port}`);
  });
