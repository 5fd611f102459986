// Where a process's resident memory lies, from /proc/<pid>/smaps: the program's files
// (the node binary, the SQLite addon, shared libraries), glibc's main heap (`[heap]`,
// what the main thread's malloc holds), and the other anonymous mappings (V8's heap
// pages, the malloc arenas of the other threads, large allocations mapped on their
// own). V8's share of the anonymous memory is its heapTotal (the inspector's figures);
// the rest of the anonymous memory is native: SQLite's page caches, buffers, the log
// writer thread, the allocator's free lists.

import { readFileSync } from 'node:fs';

export interface ResidentParts {
  files: number;
  mainHeap: number;
  otherAnonymous: number;
  threads: number;
}

const MB = 1024; // smaps counts kB

export function residentParts(pid: number): ResidentParts {
  const parts: ResidentParts = { files: 0, mainHeap: 0, otherAnonymous: 0, threads: 0 };
  let region: { name: string } | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      region = { name: head[1]! };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss || !region) continue;
    const kb = Number(rss[1]);
    if (region.name === '[heap]') parts.mainHeap += kb;
    else if (region.name === '' || region.name.startsWith('[')) parts.otherAnonymous += kb;
    else parts.files += kb;
  }
  parts.files = Math.round(parts.files / MB);
  parts.mainHeap = Math.round(parts.mainHeap / MB);
  parts.otherAnonymous = Math.round(parts.otherAnonymous / MB);
  parts.threads = Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return parts;
}
