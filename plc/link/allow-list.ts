import net from 'node:net';

// Which addresses may connect to a tcp-server channel (`allowFrom`): single addresses
// and CIDR ranges, IPv4 and IPv6. OSIP has no authentication of its own, so on a
// network shared with other devices this is what keeps a stray client from talking to
// the conveyor. An IPv4 peer seen through an IPv6 socket (`::ffff:10.0.0.5`) counts as
// its IPv4 address.

/** Checks one `allowFrom` entry; undefined when valid, else what is wrong. */
export function allowEntryProblem(entry: string): string | undefined {
  const [address = '', prefix, extra] = entry.split('/');
  if (extra !== undefined) return `[${entry}] is not an address or CIDR range`;
  const family = net.isIP(address);
  if (family === 0) return `[${entry}] is not an IPv4 or IPv6 address${prefix !== undefined ? ' range' : ''}`;
  if (prefix === undefined) return undefined;
  const bits = Number(prefix);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || bits > max) return `[${entry}]: the prefix length must be 0-${max}`;
  return undefined;
}

export class AllowList {
  private readonly list = new net.BlockList();

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', prefix] = entry.split('/');
      const type = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(prefix), type);
    }
  }

  allows(remote: string | undefined): boolean {
    if (!remote) return false;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remote);
    const address = mapped ? mapped[1]! : remote;
    return this.list.check(address, net.isIP(address) === 6 ? 'ipv6' : 'ipv4');
  }
}
