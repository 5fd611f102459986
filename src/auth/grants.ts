import type { Route } from '../http/router.ts';

// Grants are named `<resource>:<action>` by the routes that need them. The catalogue
// is whatever the route table names: a new route cannot require a grant that no role
// can ever hold.

const ACTIONS: Record<string, string> = { read: 'Read', write: 'Create, change and delete' };

export function grantCatalogue(routes: readonly Route[]): { name: string; description: string }[] {
  const names = [...new Set(routes.map((r) => r.grant).filter((g) => g !== 'public'))].sort();
  return names.map((name) => {
    const [resource = '', action = ''] = name.split(':');
    return { name, description: `${ACTIONS[action] ?? action} ${resource.replace(/-/g, ' ')}` };
  });
}
