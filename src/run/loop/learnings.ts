import { readFile, writeFile } from 'node:fs/promises';

/** Most of learnings.md that is read back into a prompt; the prompt builder trims further. */
const MAX_READ_BYTES = 256 * 1024;

/** Creates the learnings file if missing, so the agent can append to it from the start. */
export async function ensureLearningsFile(path: string): Promise<void> {
  await writeFile(path, '', { flag: 'a' });
}

/** The learnings so far; a missing or unreadable file reads as empty, never fatal. */
export async function readLearnings(path: string): Promise<string> {
  try {
    const buffer = await readFile(path);
    const slice =
      buffer.length > MAX_READ_BYTES ? buffer.subarray(buffer.length - MAX_READ_BYTES) : buffer;
    return slice.toString('utf8');
  } catch {
    return '';
  }
}
