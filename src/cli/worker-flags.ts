import { Option, type Command } from 'commander';

/**
 * `worker`'s own flags, added after the run options; the two run options whose meaning differs
 * for a worker (`--on-complete`: keep only; `--max-duration`: the worker's) say so in its help.
 */
export function addWorkerOptions(cmd: Command): Command {
  for (const option of cmd.options) {
    if (option.long === '--on-complete') {
      option.description = 'keep only: every run stays on ralph/<change>, pushed, for a person';
    }
    if (option.long === '--max-duration') {
      option.description =
        "the worker's time: each run gets what is left, and no change is taken up once it is out (exit 5)";
    }
  }
  return cmd
    .addOption(
      new Option('--from <remote>', 'the git remote whose changes this worker takes up (required)'),
    )
    .addOption(
      new Option(
        '--watch <interval>',
        'once nothing is left, look again this often instead of ending (Ctrl-C ends the worker)',
      ),
    )
    .addOption(
      new Option(
        '--claim-ttl <duration>',
        "another machine's claim whose heartbeat is older than this is taken over (default: 15m; this host's, at once when its process is gone)",
      ),
    )
    .addOption(
      new Option(
        '--list',
        'only say what a worker would do now with each change of this work tree and each run on the remote (nothing claimed, switched or run)',
      ),
    );
}
