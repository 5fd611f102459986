import { effect, signal } from '@preact/signals';

// How the page looks on this device: the theme (remembered in localStorage; `auto`
// follows the system's light or dark preference) and the wallboard mode (large type,
// no controls) for wall screens, set by `?wallboard=1` in the address, so a wall screen's
// bookmark opens in it.

const THEMES = ['auto', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

const THEME_KEY = 'wms.hmi.theme';
const remembered = localStorage.getItem(THEME_KEY);

export const theme = signal<Theme>((THEMES as readonly (string | null)[]).includes(remembered) ? (remembered as Theme) : 'auto');

effect(() => {
  const root = document.documentElement;
  if (theme.value === 'auto') delete root.dataset.theme;
  else root.dataset.theme = theme.value;
});

/** auto → light → dark → auto. */
export function nextTheme(): void {
  theme.value = THEMES[(THEMES.indexOf(theme.value) + 1) % THEMES.length]!;
  localStorage.setItem(THEME_KEY, theme.value);
}

export const wallboard = signal(new URLSearchParams(location.search).get('wallboard') === '1');

effect(() => {
  document.documentElement.classList.toggle('wallboard', wallboard.value);
});

export function setWallboard(on: boolean): void {
  wallboard.value = on;
  const url = new URL(location.href);
  if (on) url.searchParams.set('wallboard', '1');
  else url.searchParams.delete('wallboard');
  history.replaceState(history.state, '', url);
}

// A wall screen has no controls to leave the mode with: Escape does (or a double-click on the top bar).
window.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && wallboard.value) setWallboard(false);
});
