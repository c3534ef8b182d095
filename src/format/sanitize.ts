/**
 * Makes agent text safe to print on a terminal: escape sequences (colours, cursor
 * moves, OSC titles) are removed and other control characters shown as `�`, so an
 * agent can never move the cursor or rewrite the screen. Newlines and tabs stay.
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/* eslint-enable no-control-regex */

export function sanitizeForTerminal(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(/\r\n/g, '\n').replace(CONTROL, '�');
}
