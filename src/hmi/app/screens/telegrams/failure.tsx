import { errorText, t } from '../../i18n.ts';
import { Icon } from '../../icons.tsx';

/** A failed read, told in the user's language, with a retry where one helps. */
export function Failure({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div class="failure" role="alert">
      <Icon name="warning" />
      <span>{errorText(error)}</span>
      {retry && (
        <button type="button" onClick={retry}>
          {t('action.retry')}
        </button>
      )}
    </div>
  );
}
