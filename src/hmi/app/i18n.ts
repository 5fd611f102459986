import { effect, signal } from '@preact/signals';
import type { MessageKey } from '../../contract/messages.ts';
import { ApiFailure } from './api.ts';
import { shellMessages } from './messages.ts';

// English and German. The language is the browser's first of the two it prefers
// (English otherwise), switchable, remembered in localStorage. t(key) reads the
// language signal, so everything rendered with it follows a switch at once. Screens
// bring their own texts (screens.ts `messages`), keyed under their own prefix.

const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export type Messages = Readonly<Record<Language, Readonly<Record<string, string>>>>;

/**
 * Texts keyed `<prefix><messageKey>`: the words for the appliance's refusals, which
 * errorText() (`error.`) or a screen (its own prefix) looks up by the key a refusal
 * carries. Written into a dictionary as `...({ … } satisfies RefusalTexts<'error.'>)`,
 * so that a key the appliance no longer has (src/contract/messages.ts) fails
 * `tsc -p src/hmi/app` instead of never being shown. `Key` widens it where a screen
 * tells one key apart further (`<key>.<state>`).
 */
export type RefusalTexts<Prefix extends string, Key extends string = MessageKey> = { readonly [K in Key as `${Prefix}${K}`]?: string };

const KEY = 'wms.hmi.language';
const dictionaries: Record<Language, Record<string, string>> = { en: {}, de: {} };

const isLanguage = (value: unknown): value is Language => (LANGUAGES as readonly unknown[]).includes(value);

function browserLanguage(): Language {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

const remembered = localStorage.getItem(KEY);
export const language = signal<Language>(isLanguage(remembered) ? remembered : browserLanguage());

effect(() => {
  document.documentElement.lang = language.value;
});

export function setLanguage(value: Language): void {
  language.value = value;
  localStorage.setItem(KEY, value);
}

export function addMessages(messages: Messages): void {
  for (const lang of LANGUAGES) Object.assign(dictionaries[lang], messages[lang]);
}
addMessages(shellMessages);

export const hasText = (key: string): boolean => key in dictionaries[language.value] || key in dictionaries.en;

/** The text of a key in the user's language (English when missing), `{name}` filled in. */
export function t(key: string, params?: Readonly<Record<string, string | number>>): string {
  const text = dictionaries[language.value][key] ?? dictionaries.en[key] ?? key;
  return params ? text.replace(/\{(\w+)\}/g, (all, name: string) => (name in params ? String(params[name]) : all)) : text;
}

/** The plural rules of each language, made once: a count in a text is chosen by them. */
const pluralRules = new Map<Language, Intl.PluralRules>(LANGUAGES.map((lang) => [lang, new Intl.PluralRules(lang)]));

/**
 * A text about a count: `<key>.<form>` for the form the language's plural rules give
 * the count (English and German: `one`, `other`), `<key>.other` when that form has no
 * text of its own; `{n}` is the count. Every text that counts things goes through here,
 * so "1 position" and "2 positions" come out right in each language.
 */
export function plural(key: string, n: number, params?: Readonly<Record<string, string | number>>): string {
  const form = `${key}.${pluralRules.get(language.value)!.select(n)}`;
  return t(hasText(form) ? form : `${key}.other`, { ...params, n });
}

/**
 * What to tell the user about a failure: the text of its message key, else of its
 * HTTP status, else a general one. Never the body's English message nor a stack.
 */
export function errorText(err: unknown): string {
  if (err instanceof ApiFailure) {
    if (hasText(`error.${err.messageKey}`)) return t(`error.${err.messageKey}`);
    if (hasText(`error.http.${err.status}`)) return t(`error.http.${err.status}`);
    if (err.status >= 500) return t('error.http.500');
    return t('error.refused');
  }
  return t('error.unexpected');
}

/** Date and time in the user's language, to the second. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(language.value, { dateStyle: 'short', timeStyle: 'medium' }).format(new Date(iso));
}

/** "5 min", "2 h 10 min", "3 d": how long ago, short. */
export function formatAge(iso: string, now: number): string {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return t('age.now');
  if (minutes < 60) return t('age.minutes', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t('age.hours', { h: hours, m: minutes % 60 });
  return t('age.days', { n: Math.floor(hours / 24) });
}
