// The parent's side of the API load (load.ts runs it in a process of its own): the
// lists it may page through, read from /openapi.json, and the load process started,
// told to go and awaited. Shared by the mixed-load benchmark and the soak.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Appliance } from '../bench-plc/appliance.ts';
import type { LoadConfig, LoadMessage, LoadResult } from './load.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The list operations that take `limit`/`after` (and no path parameter), from /openapi.json. */
export async function pagedLists(app: Appliance): Promise<string[]> {
  const spec = (await app.api('GET', '/openapi.json')) as {
    paths: Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>>;
  };
  const lists: string[] = [];
  for (const [p, ops] of Object.entries(spec.paths)) {
    const get = ops.get;
    if (!get || p.includes('{')) continue;
    const names = new Set((get.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name));
    const required = (get.parameters ?? []).filter((x) => x.in === 'query' && x.required);
    if (names.has('limit') && names.has('after') && required.length === 0) lists.push(p);
  }
  return lists;
}

export interface RunningLoad {
  go(): void;
  done: Promise<LoadResult>;
}

/** Starts the load process; resolves when its event streams are open. */
export function startLoad(config: LoadConfig, marks: { listStart?: number; listEnd?: number }): Promise<RunningLoad> {
  const child = spawn(process.execPath, [path.join(HERE, 'load.ts'), JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolveReady, rejectReady) => {
    let resolveDone!: (r: LoadResult) => void;
    let rejectDone!: (e: Error) => void;
    const done = new Promise<LoadResult>((res, rej) => ((resolveDone = res), (rejectDone = rej)));
    done.catch(() => {});
    child.on('message', (m: LoadMessage) => {
      if (m.kind === 'ready') resolveReady({ go: () => child.send('go'), done });
      else if (m.kind === 'list-start') marks.listStart = performance.now();
      else if (m.kind === 'list-end') marks.listEnd = performance.now();
      else if (m.kind === 'result') resolveDone(m.result);
      else if (m.kind === 'error') {
        rejectReady(new Error(m.message));
        rejectDone(new Error(m.message));
      }
    });
    child.on('exit', (code) => {
      const err = new Error(`load process exited with ${code}`);
      rejectReady(err);
      rejectDone(err);
    });
  });
}
