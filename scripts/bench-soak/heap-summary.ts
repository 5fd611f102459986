// What a V8 heap snapshot is made of, grouped as the DevTools "Summary" view groups it
// (objects by constructor, strings, arrays, code, closures), and what grew between two
// snapshots: the first place to look when the live heap grows from one idle pause to
// the next.

export interface HeapGroup {
  name: string;
  count: number;
  bytes: number;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count per group, biggest first. */
export function summarise(json: string): HeapGroup[] {
  const snap = JSON.parse(json) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const groups = new Map<string, HeapGroup>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name = groupName(type, snap.strings[snap.nodes[i + nameAt]!]!);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = { name, count: 0, bytes: 0 }));
    group.count++;
    group.bytes += snap.nodes[i + sizeAt]!;
  }
  return [...groups.values()].sort((a, b) => b.bytes - a.bytes);
}

function groupName(type: string, name: string): string {
  switch (type) {
    case 'object':
    case 'native':
      return name;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'closure':
      return '(closure)';
    case 'array':
      return '(array)';
    case 'code':
      return '(compiled code)';
    case 'hidden':
    case 'object shape':
      return '(system)';
    default:
      return `(${type})`;
  }
}

/** Groups that grew from `before` to `after`, most bytes first. */
export function growth(before: HeapGroup[], after: HeapGroup[], top = 15): { name: string; count: number; bytes: number }[] {
  const was = new Map(before.map((g) => [g.name, g]));
  return after
    .map((g) => ({ name: g.name, count: g.count - (was.get(g.name)?.count ?? 0), bytes: g.bytes - (was.get(g.name)?.bytes ?? 0) }))
    .filter((g) => g.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
}
