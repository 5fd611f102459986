import type { ComponentType } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { watchAlarms } from './alarm-watch.ts';
import { t } from './i18n.ts';
import { Icon } from './icons.tsx';
import { liveState } from './live.ts';
import { Login } from './login.tsx';
import { PairIndicator } from './pair-indicator.tsx';
import { watchPair } from './pair-watch.ts';
import { setWallboard, wallboard } from './prefs.ts';
import { hrefOf, replaceRoute, route } from './router.ts';
import { SCREENS, type Screen, type ScreenProps } from './screens.ts';
import { can, sessionState, user } from './session.ts';
import { AlarmBadge, ConnectionIndicator, LanguageButton, LogoutButton, ThemeButton, WallboardButton } from './tools.tsx';

// The page: the login, or the shell (top bar with navigation, the pair, connection and
// alarm badge; the screen of the address below). When the session ends, the login covers
// the shell, which stays mounted and inert underneath: after the login the user is
// back on the same screen with whatever was typed.

export function App() {
  const state = sessionState.value;
  // A token refused when the page loads: there is no page yet to keep under the login.
  if (state === 'anonymous' || (state === 'expired' && !user.value)) return <Login />;
  if (state === 'checking') {
    return (
      <p class="checking" role="status">
        {t('login.checking')}
      </p>
    );
  }
  return (
    <>
      <Shell inert={state === 'expired'} />
      {state === 'expired' && <Login />}
    </>
  );
}

function Shell({ inert }: { inert: boolean }) {
  const shell = useRef<HTMLDivElement>(null);
  // Watched anew when the user changes (a login after an expiry may be someone else's).
  useEffect(watchAlarms, [user.value]);
  useEffect(watchPair, [user.value]);
  // `inert` as a property: older Preact typings do not know the attribute.
  useEffect(() => {
    if (shell.current) shell.current.inert = inert;
  }, [inert]);

  const allowed = SCREENS.filter((s) => can(s.grant));
  const { screen: path, rest } = route.value;
  const screen = allowed.find((s) => s.path === path);
  useEffect(() => {
    // No screen named (a fresh start): the first the user may open.
    if (!path && allowed[0]) replaceRoute(allowed[0].path);
  }, [path, allowed[0]?.path]);
  useEffect(() => {
    document.title = screen ? `${t(screen.title)} · ${t('app.name')}` : t('app.name');
  });

  const board = wallboard.value;
  return (
    <div class="shell" ref={shell}>
      <a class="skip" href="#main" onClick={skipToMain}>
        {t('app.skip')}
      </a>
      <header class="bar" onDblClick={board ? () => setWallboard(false) : undefined}>
        <span class="brand">{t('app.name')}</span>
        {!board && (
          <nav aria-label={t('nav.label')} class="nav">
            {allowed.map((s) => (
              <a key={s.path} href={hrefOf(s.path)} class="bar-link nav-link" title={t(s.title)} aria-current={s === screen ? 'page' : undefined}>
                <Icon name={s.icon} />
                <span class="nav-label">{t(s.title)}</span>
              </a>
            ))}
          </nav>
        )}
        <div class="status">
          <PairIndicator />
          <ConnectionIndicator />
          <AlarmBadge />
        </div>
        {!board && (
          <div class="tools" role="group" aria-label={t('tools.label')}>
            <LanguageButton />
            <ThemeButton />
            <WallboardButton />
            <LogoutButton />
          </div>
        )}
      </header>
      {liveState.value === 'lost' && (
        <div class="banner lost fill-critical" role="alert">
          <Icon name="warning" />
          {t('conn.lostBanner')}
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {screen ? (
          <ScreenHost key={screen.path} screen={screen} rest={rest} />
        ) : (
          <p class="empty">{allowed.length === 0 ? t('nav.none') : path ? t('nav.unknown') : ''}</p>
        )}
      </main>
    </div>
  );
}

function skipToMain(e: Event) {
  // The address holds the route: move the focus without touching it.
  e.preventDefault();
  document.getElementById('main')?.focus();
}

/** Components of screens loaded so far: a screen is fetched once per page load. */
const loaded = new Map<string, Promise<ComponentType<ScreenProps>>>();

function loadScreen(screen: Screen): Promise<ComponentType<ScreenProps>> {
  let component = loaded.get(screen.path);
  if (!component) {
    component = screen.load().then((m) => m.default);
    component.catch(() => loaded.delete(screen.path));
    loaded.set(screen.path, component);
  }
  return component;
}

function ScreenHost({ screen, rest }: { screen: Screen; rest: string }) {
  const [component, setComponent] = useState<{ C: ComponentType<ScreenProps> } | undefined>(undefined);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setFailed(false);
    loadScreen(screen).then(
      (C) => current && setComponent({ C }),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [screen, attempt]);
  if (failed) {
    return (
      <div class="empty" role="alert">
        <p>{t('screen.failed')}</p>
        <button type="button" onClick={() => setAttempt(attempt + 1)}>
          {t('action.retry')}
        </button>
      </div>
    );
  }
  if (!component) {
    return (
      <p class="empty" role="status">
        {t('screen.loading')}
      </p>
    );
  }
  const { C } = component;
  return <C rest={rest} />;
}
