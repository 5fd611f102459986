import { Fragment } from 'preact';

// Coordinates (AREA/AISLE/X/Y/Z) are long words: in a narrow lane they should wrap
// after a slash, never inside a part. <wbr> offers the break without adding a
// character to the text (copied, or read by a screen reader, it stays the coordinate).

export function breakable(text: string) {
  return text.split('/').map((part, i) => (
    <Fragment key={i}>
      {i > 0 && '/'}
      {i > 0 && <wbr />}
      {part}
    </Fragment>
  ));
}
