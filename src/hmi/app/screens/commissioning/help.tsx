import { t } from '../../i18n.ts';
import { hrefOf } from '../../router.ts';

// The in-app help: the steps of docs/commissioning.md ("From an empty box to a moving
// unit"), which the page cannot link to (the appliance serves no docs/ files). Same
// steps, same titles, same commands; test/hmi-commissioning.test.ts checks that the
// titles here and the headings there agree.

/** The commands of a step, as typed in a shell on the box (language-neutral). */
const COMMANDS: Readonly<Record<number, string>> = {
  1: `mkdir wms-data
cat > wms-data/wms.config.json <<'EOF'
{ "plc": { "channels": [
  { "name": "CNV01", "transport": "tcp-server", "host": "127.0.0.1", "port": 5020 } ] } }
EOF
WMS_ADMIN_PASSWORD=commission-me ./wms --data-dir wms-data`,
  6: `TOKEN=$(curl -s localhost:8080/oauth/token --data-urlencode grant_type=password \\
  --data-urlencode username=admin --data-urlencode password=commission-me \\
  | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  localhost:8080/v1/transport-units \\
  -d '{"barcode": "4711", "actualLocation": "CONV/0001/0001/0000/0000", "transportUnitType": "EURO"}'
curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
  localhost:8080/v1/transport-orders \\
  -d '{"barcode": "4711", "targetLocation": "CONV/0001/0004/0000/0000"}'`,
  8: `./wms simulate --tcp 127.0.0.1:5020 --travel 2000 run-tu 4711 CONV/0001/0001/0000/0000`,
};

const HELP_STEPS = 9;

export function Help() {
  const steps = Array.from({ length: HELP_STEPS }, (_, i) => i + 1);
  return (
    <article class="cm-help" aria-labelledby="cm-help-title">
      <h2 id="cm-help-title">{t('commissioning.help.title')}</h2>
      <p>{t('commissioning.help.intro')}</p>
      <ol class="cm-steps">
        {steps.map((n) => (
          <li key={n} data-step={n}>
            <h3>{t(`commissioning.help.s${n}.title`)}</h3>
            {t(`commissioning.help.s${n}.text`)
              .split('\n')
              .map((para, i) => (
                <p key={i}>{para}</p>
              ))}
            {COMMANDS[n] && (
              <pre tabIndex={0} aria-label={t('commissioning.help.commands')}>
                <code>{COMMANDS[n]}</code>
              </pre>
            )}
          </li>
        ))}
      </ol>
      <p class="cm-hint">{t('commissioning.help.more')}</p>
      <p>
        <a class="cm-back" href={hrefOf('commissioning')}>
          {t('commissioning.help.back')}
        </a>
      </p>
    </article>
  );
}
