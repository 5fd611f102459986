import { useSignal } from '@preact/signals';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { login } from './auth.ts';
import { errorText, t } from './i18n.ts';
import { lastUsername, sessionState, user } from './session.ts';
import { LanguageButton, ThemeButton } from './tools.tsx';

// The login: first thing on a fresh tab, and over the page (which stays as it was
// underneath) when the session has ended.

export function Login() {
  const expired = sessionState.value === 'expired';
  // Over the page when there is one to keep; the whole page when the token was refused on load.
  const layered = expired && user.value !== undefined;
  const username = useSignal(lastUsername.value);
  const password = useSignal('');
  const busy = useSignal(false);
  const error = useSignal<string | undefined>(undefined);
  const first = useRef<HTMLInputElement>(null);
  const second = useRef<HTMLInputElement>(null);

  useLayoutEffect(() => {
    (username.value ? second : first).current?.focus();
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    busy.value = true;
    error.value = undefined;
    try {
      await login(username.value.trim(), password.value);
      password.value = '';
    } catch (err) {
      error.value = errorText(err);
      password.value = '';
      second.current?.focus();
    } finally {
      busy.value = false;
    }
  };

  return (
    <div class={layered ? 'login-layer' : 'login-page'}>
      <main class="login" aria-labelledby="login-title">
        <h1 id="login-title">{t('login.title')}</h1>
        <p class={expired ? 'notice' : 'muted'}>{expired ? t('login.expired') : t('login.intro')}</p>
        <form onSubmit={submit}>
          <label for="login-username">{t('login.username')}</label>
          <input
            id="login-username"
            ref={first}
            name="username"
            autocomplete="username"
            autocapitalize="none"
            spellcheck={false}
            required
            value={username.value}
            onInput={(e) => (username.value = e.currentTarget.value)}
          />
          <label for="login-password">{t('login.password')}</label>
          <input
            id="login-password"
            ref={second}
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password.value}
            onInput={(e) => (password.value = e.currentTarget.value)}
          />
          <div role="alert" class="error-text">
            {error.value}
          </div>
          <button type="submit" class="primary" disabled={busy.value}>
            {busy.value ? t('login.busy') : t('login.submit')}
          </button>
        </form>
        <div class="login-tools">
          <LanguageButton />
          <ThemeButton />
        </div>
      </main>
    </div>
  );
}
