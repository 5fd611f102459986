import { logout } from './auth.ts';
import { language, plural, setLanguage, t } from './i18n.ts';
import { Icon } from './icons.tsx';
import { liveState } from './live.ts';
import { nextTheme, setWallboard, theme } from './prefs.ts';
import { unacknowledged } from './alarm-watch.ts';
import { hrefOf } from './router.ts';
import { can, sessionState, user } from './session.ts';

// The small things in the top bar: settings buttons, the connection indicator and the
// alarm badge.

export function LanguageButton() {
  const other = language.value === 'en' ? 'de' : 'en';
  return (
    <button type="button" class="tool" lang={other} aria-label={t('tools.languageLabel')} onClick={() => setLanguage(other)}>
      <Icon name="language" />
      <span class="tool-label">{t('tools.language')}</span>
    </button>
  );
}

export function ThemeButton() {
  const label = t('tools.theme', { theme: t(`theme.${theme.value}`) });
  return (
    <button type="button" class="tool" aria-label={label} title={label} onClick={nextTheme}>
      <Icon name="theme" />
    </button>
  );
}

export function WallboardButton() {
  return (
    <button type="button" class="tool" aria-label={t('tools.wallboardLabel')} title={t('tools.wallboardLabel')} onClick={() => setWallboard(true)}>
      <Icon name="wallboard" />
    </button>
  );
}

export function LogoutButton() {
  return (
    <>
      <span class="user tool-label" title={t('tools.user', { name: user.value?.username ?? '' })}>
        {user.value?.username}
      </span>
      <button type="button" class="tool" onClick={logout}>
        <Icon name="logout" />
        <span class="tool-label">{t('tools.logout')}</span>
      </button>
    </>
  );
}

/** Always on screen: live, connecting, lost, not live at all (and why), or signed out (the session ended). */
export function ConnectionIndicator() {
  const state = sessionState.value === 'expired' ? 'signed-out' : liveState.value;
  const title = state === 'off' && !can('events:read') ? t('conn.offTitle') : undefined;
  return (
    <span
      id="connection"
      class={`connection ${state}${state === 'lost' || state === 'signed-out' ? ' fill-critical' : ''}`}
      data-state={state}
      role="status"
      title={title}
    >
      <Icon name={state === 'lost' || state === 'signed-out' ? 'warning' : 'live'} />
      <span class="connection-label">{t(`conn.${state}`)}</span>
    </span>
  );
}

/** Unacknowledged alarms, on every screen; a link to the alarms. */
export function AlarmBadge() {
  if (!can('alarms:read')) return null;
  const n = unacknowledged.value.length;
  const critical = unacknowledged.value.some((a) => a.severity === 'critical');
  // The name starts with the number shown, as a screen reader user hears it.
  const label = plural('badge.alarms', n);
  return (
    <a
      id="alarm-badge"
      href={hrefOf('alarms')}
      class={`bar-link badge${critical ? ' fill-critical' : n ? ' fill-major' : ''}`}
      aria-label={label}
      title={label}
      data-count={n}
    >
      <Icon name="bell" />
      <span class="badge-count">{n}</span>
    </a>
  );
}
