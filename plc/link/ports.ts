// The serial devices of this box, for an installer choosing a channel's `device`.
// serialport's own list() asks `udevadm`, which minimal images lack, so the list is
// read from the file system: the stable names udev keeps in /dev/serial/by-id (a USB
// adapter keeps its name across reboots and ports, unlike /dev/ttyUSB0), and the
// plain /dev/ttyS*, ttyUSB*, ttyACM* nodes. serialport's details (maker, serial
// number) are added only when asked for and only if its list() works.

import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

interface SerialPortInfo {
  /** The device node, e.g. /dev/ttyUSB0. */
  path: string;
  /** Its stable name under /dev/serial/by-id, when udev made one. */
  byId?: string;
  manufacturer?: string;
  serialNumber?: string;
}

interface ListOptions {
  /** Default /dev (tests point it elsewhere). */
  devDir?: string;
  /** Default /sys/class/tty. */
  sysDir?: string;
  /** Also ask serialport's list() for maker and serial number (ignored when it fails). */
  details?: boolean;
}

const DEVICE = /^tty(S|USB|ACM)\d+$/;

const entries = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

/**
 * A ttyS node exists for every UART slot the kernel reserved (often 32), most of them
 * without hardware; serial_core reports those as type 0 (PORT_UNKNOWN).
 */
function isPhantomUart(name: string, sysDir: string): boolean {
  if (!name.startsWith('ttyS')) return false;
  try {
    return readFileSync(path.join(sysDir, name, 'type'), 'utf8').trim() === '0';
  } catch {
    return false;
  }
}

export async function listSerialPorts(options: ListOptions = {}): Promise<SerialPortInfo[]> {
  const devDir = options.devDir ?? '/dev';
  const sysDir = options.sysDir ?? '/sys/class/tty';
  const byPath = new Map<string, SerialPortInfo>();

  const byIdDir = path.join(devDir, 'serial', 'by-id');
  for (const name of entries(byIdDir)) {
    const link = path.join(byIdDir, name);
    let target: string;
    try {
      target = realpathSync(link);
    } catch {
      continue; // a dangling link: the adapter was just pulled
    }
    byPath.set(target, { path: target, byId: link });
  }
  for (const name of entries(devDir)) {
    if (!DEVICE.test(name) || isPhantomUart(name, sysDir)) continue;
    const node = path.join(devDir, name);
    if (!byPath.has(node)) byPath.set(node, { path: node });
  }

  if (options.details) {
    try {
      const { SerialPort } = await import('serialport');
      for (const info of await SerialPort.list()) {
        const known = byPath.get(info.path);
        if (!known) continue;
        if (info.manufacturer) known.manufacturer = info.manufacturer;
        if (info.serialNumber) known.serialNumber = info.serialNumber;
      }
    } catch {
      // No udevadm (or no addon): the file-system list stands on its own.
    }
  }
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
}
