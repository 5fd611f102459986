import type { AssetTable, SerializedAsset } from './assets.ts';

// The seam between running from source and running from the bundle. scripts/build.ts
// replaces this whole file, inside the bundle only, with the asset table it built:
// `embeddedAssets` then holds every file and `sourceAssets` is undefined, so neither
// esbuild nor the app's sources are part of the bundle. From source, the assets are
// built by esbuild when first asked for.

/** The HMI's files, embedded by the build; undefined when running from source. */
export const embeddedAssets: Readonly<Record<string, SerializedAsset>> | undefined = undefined;

/** Builds the HMI's files from src/hmi/app; undefined in the bundle. */
export const sourceAssets: (() => Promise<AssetTable>) | undefined = () => import('./build-assets.ts').then(({ buildHmiAssets }) => buildHmiAssets());
