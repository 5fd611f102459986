// postject ships no type declarations; this is the part of its API the build uses.
declare module 'postject' {
  export function inject(file: string, resourceName: string, data: Buffer, options: { sentinelFuse: string; overwrite?: boolean }): Promise<void>;
}
