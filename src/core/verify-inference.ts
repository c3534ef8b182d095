/**
 * Verification commands suggested to the agent when the user gave no `--verify`:
 * inferred from the project's marker files. ralphtool only suggests these; it runs
 * nothing but the user's own `--verify` commands.
 */
const MARKERS: readonly { file: string; command: string }[] = [
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

/** Marker file names whose presence the caller should check, in order. */
export const VERIFY_MARKER_FILES: readonly string[] = MARKERS.map((m) => m.file);

export function inferVerifyCommands(presentFiles: ReadonlySet<string>): string[] {
  const commands: string[] = [];
  for (const marker of MARKERS) {
    if (presentFiles.has(marker.file) && !commands.includes(marker.command)) {
      commands.push(marker.command);
    }
  }
  return commands;
}
