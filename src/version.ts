import pkg from '../package.json' with { type: 'json' };

/** The appliance's version, as released (package.json). */
export const VERSION: string = pkg.version;
