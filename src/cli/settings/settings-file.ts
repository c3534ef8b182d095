import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { messageOf } from '../../core/error-details.js';
import { RalphError, UsageError } from '../../core/errors.js';
import { closestName } from '../../core/suggest.js';
import {
  NOT_SETTINGS,
  SETTING_KEYS,
  SETTING_NAMES,
  isSettingName,
  type SettingName,
} from './keys.js';

// One settings file read into checked values (docs/contract.md, "Settings"). Pure: the text is
// given; every mistake is one line naming the file, the line and the key (exit 2, as a flag's).

/** Where a file sits in the precedence: the repository's beats the user's. */
export type SettingsScope = 'repository' | 'user';

export type SettingValue = string | readonly string[];

export interface SettingsFile {
  path: string;
  scope: SettingsScope;
  /** Each key the file gives, checked, with the line it is on. */
  values: ReadonlyMap<SettingName, { value: SettingValue; line: number }>;
}

/** Parses and checks one settings file's text; `path` is how errors name it. */
export function parseSettingsFile(text: string, path: string, scope: SettingsScope): SettingsFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (offset: number): number => lines.linePos(offset).line;
  const fail = (offset: number, message: string): never => {
    throw new UsageError(`${path}:${lineOf(offset)}: ${message}`);
  };
  const [syntax] = doc.errors;
  if (syntax !== undefined) {
    fail(syntax.pos[0], `not valid YAML: ${firstLine(syntax.message)}`);
  }
  const values = new Map<SettingName, { value: SettingValue; line: number }>();
  const root = doc.contents;
  if (root === null || (isScalar(root) && root.value === null)) return { path, scope, values };
  if (!isMap(root)) {
    return fail(startOf(root), 'the settings are keys with values, one a line (agent: claude)');
  }
  for (const pair of root.items) {
    const keyNode = pair.key as Node | null;
    const at = keyNode === null ? 0 : startOf(keyNode);
    const name = isScalar(keyNode) ? String(keyNode.value) : null;
    if (name === null) return fail(at, 'a setting is a name, then a colon and its value');
    if (!isSettingName(name)) return fail(at, unknownKey(name));
    const valueNode = pair.value as Node | null;
    try {
      values.set(name, { value: checked(name, valueNode), line: lineOf(at) });
    } catch (error) {
      if (!(error instanceof RalphError)) throw error;
      const where =
        error instanceof ItemError ? error.offset : valueNode === null ? at : startOf(valueNode);
      fail(where, messageOf(error));
    }
  }
  return { path, scope, values };
}

/** The value in the flag's form (text, or a list of texts), checked by the flag's parser. */
function checked(name: SettingName, node: Node | null): SettingValue {
  const key = SETTING_KEYS[name];
  if (key.list && isSeq(node)) {
    return node.items.map((item) => {
      try {
        const text = scalarText(name, item as Node | null);
        key.check(text, name);
        return text;
      } catch (error) {
        if (!(error instanceof RalphError)) throw error;
        throw new ItemError(error.message, startOf(item as Node));
      }
    });
  }
  const text = scalarText(name, node);
  key.check(text, name);
  return key.list ? [text] : text;
}

/** A scalar as the flag would have had it typed: numbers as written (`2.50`, `90`). */
function scalarText(name: SettingName, node: Node | null): string {
  if (node === null || (isScalar(node) && node.value === null)) {
    throw new UsageError(`${name}: has no value`);
  }
  if (!isScalar(node)) {
    const what = SETTING_KEYS[name].list ? 'a text or a list of texts' : 'one value, not a list';
    throw new UsageError(`${name}: expected ${what}`);
  }
  if (typeof node.value === 'string') return node.value;
  if (typeof node.value === 'number') return node.source ?? String(node.value);
  throw new UsageError(`${name}: ${String(node.value)} is not a value this setting takes`);
}

/** A list item's mistake, said at the item's own line. */
class ItemError extends UsageError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

function unknownKey(name: string): string {
  const reason = NOT_SETTINGS[name.replace(/^-+/, '')];
  if (reason !== undefined) return `${JSON.stringify(name)} is not a setting: ${reason}`;
  const near = closestName(name, [...SETTING_NAMES, ...Object.keys(NOT_SETTINGS)]);
  if (near !== null) return `unknown setting ${JSON.stringify(name)} (did you mean ${near}?)`;
  return `unknown setting ${JSON.stringify(name)}: the settings are ${SETTING_NAMES.join(', ')}`;
}

function startOf(node: Node): number {
  return node.range?.[0] ?? 0;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
