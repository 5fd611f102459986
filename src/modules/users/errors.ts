// The message keys of the user administration (docs/users.md, "Chosen statuses"):
// users, roles, grants and API keys, each key named after the resource it refuses.

export const USER_KEYS = {
  userAlreadyExists: 'user.already.exists',
  emailMultiplePrimary: 'user.email.multiplePrimary',
  lastAdministrator: 'user.lastAdministrator',
  imageTooLarge: 'user.image.tooLarge',
  imageNotAnImage: 'user.image.notAnImage',
  roleImmutable: 'role.immutable',
  roleInUse: 'role.inUse',
  grantImmutable: 'grant.immutable',
  apiKeyAlreadyRevoked: 'apiKey.alreadyRevoked',
} as const;
