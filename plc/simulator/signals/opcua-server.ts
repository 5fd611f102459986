import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { DataType, MessageSecurityMode, SecurityPolicy, Variant } from 'node-opcua-client';
import { OPCUAServer } from 'node-opcua-server';
import type { Layout, Signal, Value } from './layout.ts';
import type { PlcMemory } from './memory.ts';
import type { SignalServer } from './server.ts';

// The simulated conveyor as an OPC UA server (node-opcua): one variable per signal, in
// the server's own namespace (ns=1) under Objects/Conveyor, readable and writable. The
// simulator's changes are set as the PLC program would set them, so subscriptions see
// them at once; a client's write comes back as the appliance's write. Any client
// certificate is accepted and every security mode offered, so the appliance's entry may
// say None, Sign or SignAndEncrypt. The server's certificates live in a temporary folder,
// removed on close: the simulator leaves nothing behind.
//
// Loaded only for --protocol opcua (./load.ts); in the appliance's bundle it is a file of
// its own, which passes the standard nodeset in (`standardNodeset`); from the sources
// node-opcua finds it in its package.

export interface OpcuaServerOptions {
  layout: Layout;
  memory: PlcMemory;
  host: string;
  port: number;
  /** The standard nodeset as node-opcua's image (the .ndjson, uncompressed); default: node-opcua's own file. */
  standardNodeset?: Uint8Array;
}

/** What node-opcua's variables offer that the server uses. */
interface UAVariable {
  setValueFromSource(value: Variant): void;
  on(event: 'value_changed', listener: (dataValue: { value: { value: unknown } }) => void): void;
}

const TYPES = { bit: DataType.Boolean, word: DataType.UInt16, text: DataType.String } as const;

/** A value as the memory keeps it (an empty OPC UA String arrives as null). */
function valueOf(signal: Signal, raw: unknown): Value {
  if (signal.kind === 'text') return raw === null || raw === undefined ? '' : String(raw);
  if (signal.kind === 'bit') return raw === true || (typeof raw === 'number' && raw !== 0);
  return Number(raw);
}

export async function startOpcuaServer(o: OpcuaServerOptions): Promise<SignalServer> {
  const pkiDir = mkdtempSync(path.join(tmpdir(), 'wms-simulate-opcua-'));
  const anywhere = o.host === '0.0.0.0' || o.host === '::';
  const server = new OPCUAServer({
    port: o.port,
    // On every interface unless told one; endpoints then carry the machine's name.
    ...(anywhere ? {} : { host: o.host, hostname: o.host }),
    alternateHostname: ['127.0.0.1'],
    serverCertificateManager: new OPCUACertificateManager({ rootFolder: path.join(pkiDir, 'server'), automaticallyAcceptUnknownCertificate: true }),
    userCertificateManager: new OPCUACertificateManager({ rootFolder: path.join(pkiDir, 'users'), automaticallyAcceptUnknownCertificate: true }),
    securityModes: [MessageSecurityMode.None, MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt],
    securityPolicies: [SecurityPolicy.None, SecurityPolicy.Basic256Sha256],
    allowAnonymous: true,
    buildInfo: { productName: 'wms conveyor simulator', buildNumber: '1' },
    ...(o.standardNodeset ? { nodesets: [{ name: 'Opc.Ua.NodeSet2.ndjson', source: o.standardNodeset }] } : {}),
  });
  const removePki = () => rmSync(pkiDir, { recursive: true, force: true });
  try {
    await server.initialize();
  } catch (err) {
    removePki();
    throw err;
  }
  const addressSpace = server.engine.addressSpace!;
  const namespace = addressSpace.getOwnNamespace();
  const folder = namespace.addFolder(addressSpace.rootFolder.objects, { browseName: 'Conveyor' });
  const variables = new Map<Signal, UAVariable>();
  /** Set while the simulator sets a variable: that change is not the appliance's write. */
  let setting = false;
  for (const signal of o.layout.signals) {
    const dataType = TYPES[signal.kind];
    const variable = namespace.addVariable({
      organizedBy: folder,
      nodeId: signal.node.replace(/^ns=1;/, ''),
      browseName: signal.node.replace(/^ns=1;s=/, ''),
      description: o.layout.describe(signal),
      dataType,
      accessLevel: 'CurrentRead | CurrentWrite',
      userAccessLevel: 'CurrentRead | CurrentWrite',
      minimumSamplingInterval: 0,
      value: new Variant({ dataType, value: o.memory.get(signal) }),
    }) as unknown as UAVariable;
    variable.on('value_changed', (dataValue) => {
      if (!setting) o.memory.written(signal, valueOf(signal, dataValue.value.value));
    });
    variables.set(signal, variable);
  }
  o.memory.on('write', (w) => {
    if (w.by !== 'simulator') return;
    setting = true;
    try {
      variables.get(w.signal)?.setValueFromSource(new Variant({ dataType: TYPES[w.signal.kind], value: w.value }));
    } finally {
      setting = false;
    }
  });
  const listeners = new Set<(line: string) => void>();
  const note = (line: string) => {
    for (const l of listeners) l(line);
  };
  server.on('session_activated', (session: { sessionName?: string }) => note(`OPC UA session of ${session.sessionName || 'a client'} opened`));
  server.on('session_closed', (session: { sessionName?: string }) => note(`OPC UA session of ${session.sessionName || 'a client'} closed`));
  try {
    await server.start();
  } catch (err) {
    await server.shutdown(0).catch(() => undefined);
    removePki();
    throw new Error(`cannot listen on port ${o.port}: ${(err as Error).message}`);
  }
  return {
    description: `OPC UA server on ${o.host}:${o.port}`,
    port: o.port,
    onNote: (l) => void listeners.add(l),
    async close() {
      await server.shutdown(0);
      removePki();
    },
  };
}
