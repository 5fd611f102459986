import type { Config } from '../config.ts';
import type { Forgotten } from '../core/cache.ts';
import type { EventRecord } from '../core/event-catalogue.ts';
import type { Principal } from '../http/context.ts';

// What the conveyor thread and the HTTP thread say to each other (docs/realtime.md):
// plain data only, as structured clone carries it (no class instances, no functions;
// a Buffer arrives as a Uint8Array).

/** What the HTTP thread starts with. */
export interface HttpThreadData {
  config: Config;
  dataDir: string;
  databaseFile: string;
  logsFile: string;
  /** The SQLite addon's file; undefined: the package's own. */
  nativeBinding: string | undefined;
  startedAt: number;
  /** The newest event id the logs database's index held at start. */
  logsIndexedAtStart: number;
  /** The cells of the flush line (src/core/durability); undefined: every commit flushes itself. */
  flushCells: Int32Array | undefined;
}

/** A request whose handler runs on the conveyor thread: what its `RequestContext` is made of. */
export interface WireRequest {
  /** The route's place in the route table (both threads build the same table). */
  route: number;
  requestId: string;
  method: string;
  path: string;
  params: Record<string, string>;
  /** The raw query string (URLSearchParams does not cross threads). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  baseUrl: string;
  clientAddress: string;
  principal: Principal | undefined;
  body: Uint8Array | undefined;
  contentType: string | undefined;
  accept: readonly string[];
}

/** A reply of the conveyor thread, a refusal included. */
export interface WireReply {
  status: number;
  body?: unknown;
  raw?: Uint8Array;
  type?: string;
  headers?: Record<string, string>;
  withoutLocation?: boolean;
}

/** Conveyor thread → HTTP thread. */
export type ToHttpThread =
  /** Serve an appliance (a thread serves one at a time, src/threads/worker.ts). */
  | { kind: 'start'; data: HttpThreadData }
  /**
   * A commit: what the caches forgot and its events, before any reply that waited for it;
   * `seq` is its place on the flush line (its events go out to streams once flushed).
   */
  | { kind: 'committed'; events: readonly EventRecord[]; forgotten: Forgotten | undefined; seq: number }
  | { kind: 'reply'; id: number; reply: WireReply }
  /** The answer to `ask`. */
  | { kind: 'answer'; id: number; value?: unknown; error?: string }
  /**
   * Block the thread until `release[0]` is set or `maxMs` passed (a diagnostic: the
   * conveyor thread answers PLCs meanwhile; test/threads.test.ts).
   */
  | { kind: 'hold'; release: Int32Array; maxMs: number }
  /** Fail as a bug would, with an uncaught exception (a diagnostic of the restart). */
  | { kind: 'fail' }
  /** Stop taking requests, finish those under way, close the read connections; then wait for the next start. */
  | { kind: 'stop'; drainMs: number; graceMs: number };

/** What the HTTP thread asks of the conveyor thread besides requests. */
export type Question =
  /** The logs database has everything handed over so far (a read of it comes next). */
  | { op: 'syncLogs' }
  /** The conveyor thread's metrics (prom-client's JSON of its registry). */
  | { op: 'metrics' };

/** HTTP thread → conveyor thread. */
export type ToConveyor =
  | { kind: 'listening'; port: number; url: string; routes: readonly string[] }
  /** The start failed (`code`: the system error's, e.g. EADDRINUSE). */
  | { kind: 'failed'; message: string; code: string | undefined; stack: string | undefined }
  | { kind: 'request'; id: number; request: WireRequest }
  | { kind: 'ask'; id: number; question: Question }
  /** A machine's API key was used (its `lastUsedAt`, written at most once a minute per key). */
  | { kind: 'apiKeyUsed'; pk: string; at: string }
  /** Log lines of the HTTP thread, written by the conveyor thread's logger destination. */
  | { kind: 'log'; lines: string }
  | { kind: 'stopped'; cut: number }
  /** A hold began: the thread is blocked from now on. */
  | { kind: 'holding' }
  /** The hold ended. */
  | { kind: 'released' };
