/**
 * Verification commands suggested to the agent when the user gave no `--verify`:
 * inferred from the project's marker files. ralphtool only suggests these; it runs
 * nothing but the user's own `--verify` commands.
 */
const MARKERS: readonly { file: string; command: string }[] = [
  // A JavaScript project's test script, run by the package manager its lockfile belongs to.
  { file: 'package.json', command: 'npm test' },
  { file: 'Cargo.toml', command: 'cargo test' },
  { file: 'pyproject.toml', command: 'pytest' },
  { file: 'setup.py', command: 'pytest' },
  { file: 'go.mod', command: 'go test ./...' },
  { file: 'pom.xml', command: 'mvn test' },
  { file: 'build.gradle', command: './gradlew test' },
  { file: 'build.gradle.kts', command: './gradlew test' },
  { file: 'Gemfile', command: 'bundle exec rake test' },
  { file: 'mix.exs', command: 'mix test' },
  { file: 'Makefile', command: 'make test' },
];

/**
 * The lockfile says which package manager runs package.json's scripts (first match wins;
 * none: npm). `bun test` would be Bun's own test runner, not the project's script.
 */
const LOCKFILES: readonly { file: string; command: string }[] = [
  { file: 'pnpm-lock.yaml', command: 'pnpm test' },
  { file: 'yarn.lock', command: 'yarn test' },
  { file: 'bun.lock', command: 'bun run test' },
  { file: 'bun.lockb', command: 'bun run test' },
  { file: 'package-lock.json', command: 'npm test' },
  { file: 'npm-shrinkwrap.json', command: 'npm test' },
];

/** Marker file names whose presence the caller should check, in order. */
export const VERIFY_MARKER_FILES: readonly string[] = [
  ...MARKERS.map((m) => m.file),
  ...LOCKFILES.map((l) => l.file),
];

export function inferVerifyCommands(presentFiles: ReadonlySet<string>): string[] {
  const commands: string[] = [];
  for (const marker of MARKERS) {
    const command =
      marker.file === 'package.json'
        ? (LOCKFILES.find((l) => presentFiles.has(l.file))?.command ?? marker.command)
        : marker.command;
    if (presentFiles.has(marker.file) && !commands.includes(command)) commands.push(command);
  }
  return commands;
}

/** The `--verify` to suggest where none was given: the project's own test command, if known. */
export function verifyHint(suggested: readonly string[]): string {
  const [first] = suggested;
  return `add --verify "${first ?? '<your test command>'}" to check each story`;
}
