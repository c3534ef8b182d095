import type { WrittenSecret } from '../secrets.js';

/** The reason an attempt that wrote a secret fails with: the file and the name, never the value. */
export function secretWrittenReason(found: WrittenSecret): string {
  return `the attempt wrote the value of ${found.name} (a secret) into ${found.path}: this run pushes its work to a remote, so never write a secret into a file; read it from the environment when the program runs`;
}
