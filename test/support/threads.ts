import { readdirSync, readFileSync } from 'node:fs';

// The threads of a process as the kernel sees them: the tests of the threads' names and
// priorities (test/threads.test.ts, test/durability.test.ts).

/** The threads of a process (this one by default): kernel id, name and nice value (/proc/<pid>/task/<tid>/stat). */
export function threads(pid: number | 'self' = 'self'): { tid: number; name: string; nice: number }[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      // After the name come the state (field 3) and on; nice is field 19.
      const fields = stat.slice(close + 2).split(' ');
      return [{ tid: Number(tid), name: stat.slice(stat.indexOf('(') + 1, close), nice: Number(fields[16]) }];
    } catch {
      return []; // it ended meanwhile
    }
  });
}
