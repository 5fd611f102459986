// A user's image is stored only when its bytes are an image: the type is read from
// the bytes themselves (their signature), never taken from the request.

const SIGNATURES: { type: string; test: (b: Buffer) => boolean }[] = [
  { type: 'image/png', test: (b) => b.length > 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { type: 'image/jpeg', test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', test: (b) => b.length > 6 && (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a') },
  { type: 'image/webp', test: (b) => b.length > 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP' },
];

/** The media type of the image in these bytes, or undefined when they are no image we accept. */
export function imageTypeOf(bytes: Buffer): string | undefined {
  return SIGNATURES.find((s) => s.test(bytes))?.type;
}

export const ACCEPTED_IMAGES = SIGNATURES.map((s) => s.type);
