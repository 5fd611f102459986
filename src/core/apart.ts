import { createRequire } from 'node:module';
import path from 'node:path';
import { compileFunction } from 'node:vm';

// Code that only some sites load lives in bundles of its own beside the appliance's
// (scripts/build.ts, `bundleApart`): the OPC UA driver (node-opcua, megabytes) and the
// NATS client of the hub link. Inside the appliance's bundle it would be parsed at every
// start and hold memory on every site, whether it uses it or not. The bundle has them
// as files beside itself; the single binary carries them as assets of the same names.
// From the sources none of this is used: the modules are imported as they are.

interface Sea {
  isSea(): boolean;
  getAsset(key: string, encoding: string): string;
}

/** The exports of a bundle apart (`opcua-driver.cjs`, `nats-client.cjs`), loaded at the first call. */
export function loadApart(asset: string): unknown {
  const sea = seaModule();
  if (sea?.isSea()) {
    // A single binary has no file to require: the asset's text is compiled as a CommonJS
    // module. It requires only Node's own modules, which a single binary's require serves.
    const module = { exports: {} as unknown };
    const run = compileFunction(sea.getAsset(asset, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: asset });
    run(module.exports, require, module, asset, '.');
    return module.exports;
  }
  return createRequire(__filename)(path.join(__dirname, asset));
}

function seaModule(): Sea | undefined {
  try {
    return process.getBuiltinModule('node:sea') as Sea;
  } catch {
    return undefined;
  }
}
