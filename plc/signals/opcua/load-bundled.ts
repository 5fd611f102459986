import { createRequire } from 'node:module';
import path from 'node:path';
import { compileFunction } from 'node:vm';

// In the appliance's bundle and single binary the OPC UA driver (node-opcua: megabytes of
// code) is a bundle of its own, `opcua-driver.cjs` (scripts/build.ts), that only a start
// of an OPC UA channel reads: inside the appliance's bundle it would be parsed at every
// start and hold memory on every site, OPC UA or not. The bundle has it beside itself;
// the single binary carries it as an asset. From the sources this module is not used.

export const OPCUA_DRIVER_ASSET = 'opcua-driver.cjs';

interface Sea {
  isSea(): boolean;
  getAsset(key: string, encoding: string): string;
}

/** The exports of the driver bundle (`createDriver`, `createOpcuaDriver`). */
export function loadBundledOpcuaDriver(): unknown {
  const sea = seaModule();
  if (sea?.isSea()) {
    // A single binary has no file to require: the asset's text is compiled as a CommonJS
    // module. It requires only Node's own modules, which a single binary's require serves.
    const module = { exports: {} as unknown };
    const run = compileFunction(sea.getAsset(OPCUA_DRIVER_ASSET, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename: OPCUA_DRIVER_ASSET,
    });
    run(module.exports, require, module, OPCUA_DRIVER_ASSET, '.');
    return module.exports;
  }
  return createRequire(__filename)(path.join(__dirname, OPCUA_DRIVER_ASSET));
}

function seaModule(): Sea | undefined {
  try {
    return process.getBuiltinModule('node:sea') as Sea;
  } catch {
    return undefined;
  }
}
