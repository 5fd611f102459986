// node-opcua's precompiled nodeset images are bundled as bytes (esbuild `loader: {'.gz': 'binary'}`),
// into the OPC UA server's own bundle only (./opcua-bundle.ts).
declare module '*.ndjson.gz' {
  const bytes: Uint8Array;
  export default bytes;
}
