import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { RunFixture, succeed } from '../../run/helpers.js';

// A report is made to be shared (the Action puts it in a pull request's body): what the agent
// wrote into its reasons and questions goes through the one redactor (core/redact.ts) first.

const CHANGE = 'reported';
const TOKEN = 'tok-9f8e7d6c5b4a39281706';
const DOTENV = 'correct-horse-battery-staple';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

const GITHUB = `ghp_${'A1b2C3d4E5'.repeat(4)}`;

describe('report', () => {
  it('redacts every kind of secret the one redactor knows, in every format', async () => {
    // The report shows the run's figures and the change's story titles: a title is the text here
    // that anyone could have written, so it carries each kind of secret into the sink.
    const title = `Call the API with ${TOKEN}, the db ${DOTENV} at postgres://app:pa55-w0rd-x@db/x and ${GITHUB}`;
    const f = (fixture = new RunFixture(CHANGE, [{ title, tasks: ['Do it'] }], {
      '.gitignore': '.env\n',
    }));
    writeFileSync(path.join(f.dir, '.env'), `DB_PASSWORD="${DOTENV}"\n`);
    f.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const env = f.env({ SERVICE_TOKEN: TOKEN });
    const run = await f.run(['--on-complete', 'keep'], { env: { SERVICE_TOKEN: TOKEN } });
    expect(run.exitCode, run.stderr).toBe(0);
    for (const format of [[], ['--markdown'], ['--json']]) {
      const report = await runCli(['report', CHANGE, ...format], { cwd: f.dir, env });
      expect(report.exitCode, report.stderr).toBe(0);
      expect(report.stdout).toContain('[redacted $SERVICE_TOKEN]');
      for (const secret of [TOKEN, DOTENV, 'pa55-w0rd-x', GITHUB]) {
        expect(report.stdout, format.join(' ')).not.toContain(secret);
      }
    }
  });
});
