import { signal } from '@preact/signals';

// Hash routing: `#/alarms`, `#/alarms/journal`. The first segment names the screen
// (screens.ts `path`), the rest is the screen's own. The page itself is one file, so
// every address works after a reload and as a bookmark.

export interface Route {
  /** The screen's path; '' for none. */
  screen: string;
  /** What follows it, without the leading slash. */
  rest: string;
}

function parse(hash: string): Route {
  const path = hash.replace(/^#\/?/, '');
  const slash = path.indexOf('/');
  return slash < 0 ? { screen: path, rest: '' } : { screen: path.slice(0, slash), rest: path.slice(slash + 1) };
}

export const route = signal<Route>(parse(location.hash));

window.addEventListener('hashchange', () => {
  route.value = parse(location.hash);
});

export const hrefOf = (screen: string, rest = '') => `#/${screen}${rest ? `/${rest}` : ''}`;

/** Shows another address without a new history entry (a default screen, a correction). */
export function replaceRoute(screen: string, rest = ''): void {
  history.replaceState(history.state, '', hrefOf(screen, rest));
  route.value = { screen, rest };
}

/**
 * A part of the address as typed or linked: decoded, or as it stands when it is not
 * valid percent-encoding (a barcode typed into the address bar with a lone `%`).
 */
export function decodePart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
