// An in-process OPC UA server (node-opcua) with a conveyor's signals, for the signal
// channel tests: the variables a site's PLC would expose, in namespace 1, readable and
// writable, changed by the test with set() and read back with get(). stop() and start()
// take the server down and up on the same port (a PLC restart), keeping its values and
// its certificate.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OPCUACertificateManager } from 'node-opcua-certificate-manager';
import { DataType, MessageSecurityMode, SecurityPolicy, Variant } from 'node-opcua-client';
import { OPCUAServer } from 'node-opcua-server';
import { freePort } from './ports.ts';

/** What the helper uses of a server variable. */
interface UAVariable {
  readValue(): { value: { value: unknown } };
  setValueFromSource(value: Variant): void;
}

export type OpcuaValue = number | boolean | string;

/** The conveyor's variables (as in the signal channel example): node id (without `ns=1;s=`) → type and start value. */
export const CONVEYOR_VARIABLES: Record<string, { dataType: DataType; value: OpcuaValue }> = {
  'Conv.C1.Error': { dataType: DataType.UInt16, value: 0 },
  'Conv.C1.LockIn': { dataType: DataType.Boolean, value: false },
  'Conv.C1.LockOut': { dataType: DataType.Boolean, value: false },
  'Conv.Group1.Available': { dataType: DataType.Boolean, value: true },
  'Scan2.Code': { dataType: DataType.String, value: '' },
  'Scan2.New': { dataType: DataType.Boolean, value: false },
  'Scan2.Target': { dataType: DataType.String, value: '' },
  'Scan2.Ack': { dataType: DataType.Boolean, value: false },
  'Host.Life': { dataType: DataType.UInt16, value: 0 },
  'Conv.C1.Count': { dataType: DataType.UInt32, value: 0 },
};

export interface OpcuaServerOptions {
  /** user name → password; with users, anonymous sessions are refused. */
  users?: Record<string, string>;
  variables?: Record<string, { dataType: DataType; value: OpcuaValue }>;
}

export interface TestOpcuaServer {
  endpoint: string;
  port: number;
  /** The folder of the server's certificate store (its `trusted/certs` holds the clients it accepted). */
  pkiDir: string;
  /** Sets a variable as the PLC program would (`Conv.C1.Error` or `ns=1;s=Conv.C1.Error`). */
  set(name: string, value: OpcuaValue): void;
  get(name: string): OpcuaValue;
  /** Sessions open now (for a test that waits for a client to come back). */
  sessions(): number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops and removes its certificate store. */
  close(): Promise<void>;
}

export async function startOpcuaServer(options: OpcuaServerOptions = {}): Promise<TestOpcuaServer> {
  const port = await freePort();
  const pkiDir = mkdtempSync(path.join(os.tmpdir(), 'wms-opcua-server-'));
  const definitions = options.variables ?? CONVEYOR_VARIABLES;
  const values = new Map(Object.entries(definitions).map(([name, d]) => [name, d.value]));
  const variables = new Map<string, UAVariable>();
  let server: OPCUAServer | undefined;

  const short = (name: string) => name.replace(/^ns=1;s=/, '');
  const typeOf = (name: string) => {
    const d = definitions[name];
    if (!d) throw new Error(`test OPC UA server has no variable ${name}`);
    return d.dataType;
  };

  async function start(): Promise<void> {
    if (server) return;
    const users = options.users;
    const s = new OPCUAServer({
      port,
      hostname: '127.0.0.1',
      alternateHostname: ['127.0.0.1'],
      // One certificate store for every start: the restarted server is the same server to the client.
      serverCertificateManager: new OPCUACertificateManager({ rootFolder: pkiDir, automaticallyAcceptUnknownCertificate: true }),
      securityModes: [MessageSecurityMode.None, MessageSecurityMode.Sign, MessageSecurityMode.SignAndEncrypt],
      securityPolicies: [SecurityPolicy.None, SecurityPolicy.Basic256Sha256],
      allowAnonymous: !users,
      userManager: users ? { isValidUser: (user: string, password: string) => users[user] === password } : undefined,
      buildInfo: { productName: 'wms-test-plc', buildNumber: '1' },
    });
    await s.initialize();
    const addressSpace = s.engine.addressSpace!;
    const namespace = addressSpace.getOwnNamespace();
    for (const [name] of values) {
      const dataType = typeOf(name);
      variables.set(
        name,
        namespace.addVariable({
          organizedBy: addressSpace.rootFolder.objects,
          nodeId: `s=${name}`,
          browseName: name,
          dataType,
          accessLevel: 'CurrentRead | CurrentWrite',
          userAccessLevel: 'CurrentRead | CurrentWrite',
          minimumSamplingInterval: 0,
          value: new Variant({ dataType, value: values.get(name) }),
        }),
      );
    }
    await s.start();
    server = s;
  }

  async function stop(): Promise<void> {
    const s = server;
    server = undefined;
    // What clients wrote survives the restart, as a PLC's retained data does.
    for (const [name, variable] of variables) values.set(name, variable.readValue().value.value as OpcuaValue);
    variables.clear();
    await s?.shutdown(0);
  }

  await start();
  return {
    endpoint: `opc.tcp://127.0.0.1:${port}`,
    port,
    pkiDir,
    set(name, value) {
      const n = short(name);
      typeOf(n);
      values.set(n, value);
      variables.get(n)?.setValueFromSource(new Variant({ dataType: typeOf(n), value }));
    },
    get: (name) => {
      const n = short(name);
      typeOf(n);
      const variable = variables.get(n);
      return variable ? (variable.readValue().value.value as OpcuaValue) : values.get(n)!;
    },
    sessions: () => server?.currentSessionCount ?? 0,
    stop,
    start,
    async close() {
      await stop();
      rmSync(pkiDir, { recursive: true, force: true });
    },
  };
}
