import { render } from 'preact';
import { App } from './app.tsx';
import { restore } from './auth.ts';
import { addMessages } from './i18n.ts';
import { SCREENS } from './screens.ts';
import { sessionState } from './session.ts';
import './styles.css';

// The HMI's entry: texts of every screen, the session kept by this tab checked, the page drawn.

for (const screen of SCREENS) addMessages(screen.messages);

/** A stored token is checked; while the appliance cannot be reached, again every few seconds. */
async function checkSession(): Promise<void> {
  try {
    await restore();
  } catch {
    if (sessionState.value === 'checking') setTimeout(() => void checkSession(), 3000);
  }
}
void checkSession();

render(<App />, document.getElementById('app')!);
