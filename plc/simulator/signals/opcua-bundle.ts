import { gunzipSync } from 'node:zlib';
import standardNodesetImage from 'node-opcua-nodesets/nodesets/Opc.Ua.NodeSet2.ndjson.gz';
import { startOpcuaServer as start, type OpcuaServerOptions } from './opcua-server.ts';
import type { SignalServer } from './server.ts';

// The entry of the OPC UA server's own bundle, `opcua-simulator.cjs`, for `wms simulate
// --protocol opcua` from the appliance's bundle and single executable (./server.ts loads
// it). node-opcua's server with the standard nodeset inside, as node-opcua's precompiled
// image (esbuild's binary loader: `.gz` files as bytes), so the file needs nothing
// beside it. From the sources it is not used.

export function startOpcuaServer(o: OpcuaServerOptions): Promise<SignalServer> {
  return start({ ...o, standardNodeset: gunzipSync(standardNodesetImage) });
}
