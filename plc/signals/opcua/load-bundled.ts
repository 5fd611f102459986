import { loadApart } from '../../../src/core/apart.ts';

// In the appliance's bundle and single binary the OPC UA driver (node-opcua: megabytes of
// code) is a bundle apart, `opcua-driver.cjs` (src/core/apart.ts), that only a start of an
// OPC UA channel reads. From the sources this module is not used.

export const OPCUA_DRIVER_ASSET = 'opcua-driver.cjs';

/** The exports of the driver bundle (`createDriver`, `createOpcuaDriver`). */
export const loadBundledOpcuaDriver = (): unknown => loadApart(OPCUA_DRIVER_ASSET);
