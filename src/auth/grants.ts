import { grantsOf, type Route } from '../http/router.ts';

// Grants are named `<resource>:<action>` by the routes that need them. The catalogue
// is whatever the route table names: a new route cannot require a grant that no role
// can ever hold.

const ACTIONS: Record<string, string> = { read: 'Read', write: 'Create, change and delete', admin: 'Administer' };

/** Grants whose reach the generated description would understate. */
const DESCRIPTIONS: Record<string, string> = {
  'backups:admin':
    'Take, list, download and delete backups. A backup holds every password hash and the token signing key: ' +
    'whoever holds this grant can make themselves an administrator. Give it to administrators only.',
};

export function grantCatalogue(routes: readonly Route[]): { name: string; description: string }[] {
  return grantsOf(routes).map((name) => {
    const [resource = '', action = ''] = name.split(':');
    return { name, description: DESCRIPTIONS[name] ?? `${ACTIONS[action] ?? action} ${resource.replace(/-/g, ' ')}` };
  });
}
