import { DomainError, notFound, validationError } from '../../../core/errors.ts';
import { nowIso } from '../../../core/time.ts';
import type { UnitOfWork } from '../../../core/unit-of-work.ts';
import { USER_KEYS } from '../errors.ts';
import type { User, UserStore } from './store.ts';

// A user's image is stored only when its bytes are an image: the type is read from
// the bytes themselves (their signature), never taken from the request. Saving,
// reading and deleting it are here too, apart from the account's fields in service.ts:
// an image is bytes with a size limit, not a field a PATCH carries.

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

interface UserImageDeps {
  work: UnitOfWork;
  store: UserStore;
  /** The user by pKey, 404 when unknown (service.ts). */
  byPKey: (pKey: string) => User;
  /** Records `user.changed` for the user (service.ts): a new or removed image is a change of the user. */
  changed: (type: 'user.changed', user: User) => void;
  imageMaxBytes: number;
}

export function createUserImages({ work, store, byPKey, changed, imageMaxBytes }: UserImageDeps) {
  return {
    saveImage(pKey: string, bytes: Buffer): User {
      if (bytes.length === 0) throw validationError('Validation failed: the image is empty');
      if (bytes.length > imageMaxBytes) {
        throw new DomainError(413, USER_KEYS.imageTooLarge, `The image has ${bytes.length} bytes; at most ${imageMaxBytes} are accepted`, {
          obj: [bytes.length, imageMaxBytes],
        });
      }
      const type = imageTypeOf(bytes);
      if (!type) {
        throw new DomainError(400, USER_KEYS.imageNotAnImage, `The bytes are no image; accepted are ${ACCEPTED_IMAGES.join(', ')}`);
      }
      return work.run(() => {
        store.saveImage(byPKey(pKey).pk, type, bytes, nowIso());
        const user = byPKey(pKey);
        changed('user.changed', user);
        return user;
      });
    },

    image(pKey: string): { contentType: string; bytes: Buffer } {
      const user = byPKey(pKey);
      const image = store.image(user.pk);
      if (!image) throw notFound(`User [${user.username}] has no image`, [pKey]);
      return { contentType: image.content_type, bytes: image.bytes };
    },

    deleteImage(pKey: string): void {
      work.run(() => {
        const user = byPKey(pKey);
        store.deleteImage(user.pk, nowIso());
        changed('user.changed', user);
      });
    },
  };
}
