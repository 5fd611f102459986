import ModbusSerial from 'modbus-serial';
import type { ModbusRTU } from 'modbus-serial/ModbusRTU.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Layout, SignalSimulator, type Write } from '../index.ts';

// Signal mode as a library, over Modbus TCP with a plain Modbus client in the
// appliance's place: the point map (where each signal lives), values as the appliance
// reads them, and the appliance's writes as the simulator records them.

const L1 = 'CONV/0001/0001/0000/0000';
const L2 = 'CONV/0001/0002/0000/0000';

const started: SignalSimulator[] = [];
const clients: ModbusRTU[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await new Promise<void>((r) => c.close(() => r()));
  for (const s of started.splice(0)) await s.close();
});

async function modbusSimulator(): Promise<{ sim: SignalSimulator; client: ModbusRTU }> {
  const sim = await SignalSimulator.start({
    protocol: 'modbus-tcp',
    layout: new Layout([L1, `${L2}=17`], ['CONV']),
    listen: { host: '127.0.0.1', port: 0 },
    unitId: 2,
  });
  started.push(sim);
  const client = new (ModbusSerial as unknown as new () => ModbusRTU)();
  clients.push(client);
  await client.connectTCP('127.0.0.1', { port: sim.server.port! });
  client.setID(2);
  client.setTimeout(2000);
  return { sim, client };
}

describe('SignalSimulator over Modbus TCP', () => {
  it('serves the point map: error words, lock coils, the group word, the barcode as text', async () => {
    const { sim, client } = await modbusSimulator();
    expect(sim.entry).toMatchObject({ name: 'SIM01', protocol: 'modbus-tcp', host: '127.0.0.1', port: sim.server.port, unitId: 2 });
    const l2 = sim.layout.place('17')!;
    sim.driver.setError(l2, 4711);
    sim.driver.lock(l2, 'out', true);
    sim.driver.group('CONV', 'in', false);
    sim.memory.set(sim.layout.signal('barcode', l2), 'AB-1');
    // Error words from hr:100, a gap reads 0; coils 10·i + (trigger, done, in, out); groups from hr:10.
    expect((await client.readHoldingRegisters(99, 3)).data).toEqual([0, 0, 4711]);
    expect((await client.readCoils(10, 4)).data.slice(0, 4)).toEqual([false, false, false, true]);
    expect((await client.readHoldingRegisters(10, 1)).data).toEqual([2]);
    expect((await client.readHoldingRegisters(1100, 3)).data).toEqual([0x4142, 0x2d31, 0]);
  });

  it("records the appliance's writes: a text target over several registers as one write, done, the heartbeat, and a stray one", async () => {
    const { sim, client } = await modbusSimulator();
    const writes: Write[] = [];
    const strays: string[] = [];
    sim.memory.on('write', (w) => writes.push(w));
    sim.memory.on('stray', (w) => strays.push(`${w.address}=${String(w.value)}`));
    await client.writeRegisters(1010, [0x3137, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    await client.writeCoil(1, true);
    await client.writeRegister(0, 7);
    await client.writeRegister(999, 5);
    expect(writes.map((w) => `${w.by} ${w.signal.id}=${String(w.value)}`)).toEqual([
      'appliance L1.target=17',
      'appliance L1.done=true',
      'appliance heartbeat=7',
    ]);
    expect(strays).toEqual(['hr:999=5']);
    expect(sim.watch.online).toBe(true);
  });

  it('a layout names what is wrong with it', () => {
    expect(() => new Layout([])).toThrow(/give the conveyor's locations/);
    expect(() => new Layout([`${L1}=A B`])).toThrow(/a PLC code after = is 1 to 20 printable characters without spaces/);
    expect(() => new Layout([L1, L1])).toThrow(`${L1} is named twice in --locations`);
    expect(() => new Layout([L1], ['CONV', 'CONV'])).toThrow(/a group is named twice/);
    // A target holds the longest name of the layout.
    const wide = new Layout([`${'A'.repeat(20)}/0001/0001/0000/0000`]);
    expect(wide.signal('target', wide.places[0]).modbus).toEqual({ area: 'hr', offset: 1010, words: 20 });
  });
});
