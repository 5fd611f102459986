import http from 'node:http';

// The newest id of the appliance's event log, asked the way any client can: a stream
// opened with a Last-Event-ID newer than the log holds is answered `event: reset` with
// `{lastEventId, oldest, newest}` (docs/events.md).

const BEYOND = '999999999999999';

export function newestEventId(url: string, token: string): Promise<{ oldest: number; newest: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/v1/events`, { headers: { Authorization: `Bearer ${token}`, 'Last-Event-ID': BEYOND }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /v1/events: ${res.statusCode}`));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        const reset = /event: reset\ndata: (.*)\n\n/.exec(text);
        if (!reset) return;
        req.destroy();
        resolve(JSON.parse(reset[1]!) as { oldest: number; newest: number });
      });
    });
    req.on('error', reject);
  });
}
