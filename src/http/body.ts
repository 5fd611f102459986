import type { IncomingMessage, ServerResponse } from 'node:http';
import { ServerDeclined } from './errors.ts';

// The bytes of a request and of a streamed reply: a body read up to the limit (413
// past it, declared or not), and the back-pressure of a reply written in chunks.

/** The client closed its connection before its request body arrived: nobody to answer, nothing failed. */
export class ClientGone extends Error {}

/** Whether the request says it has a body (a length other than 0, or chunks). */
export function carriesBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

/** The whole body, at most `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    return Promise.reject(new ServerDeclined(413, `Request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
  }
  // Gone already while its token was being checked: its 'close' will not come again.
  if (req.destroyed && !req.complete) return Promise.reject(new ClientGone('client went away before its request body arrived'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        reject(new ServerDeclined(413, `Request body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', (err) => reject(new ClientGone(`client went away before its request body arrived (${err.message})`)));
    req.once('close', () => {
      if (!req.complete) reject(new ClientGone('client went away before its request body arrived'));
    });
  });
}

/** Resolves when the socket can take more, or is gone. */
export function roomOrGone(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
