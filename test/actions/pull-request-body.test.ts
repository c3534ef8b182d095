import { describe, expect, it } from 'vitest';
import { BODY_LIMIT, pullRequestBody } from '../../action/pull-request-body.mjs';

const URL = 'https://github.com/o/r/actions/runs/1';

describe('the pull request body', () => {
  it('notifies nobody: every @mention is broken, code and e-mail addresses aside', () => {
    const body = pullRequestBody('thanks @octocat and @org/team; mail a@b.c; `@keep`', {
      artifactUrl: URL,
    });
    expect(body).not.toMatch(/(^|[^\w`])@[A-Za-z0-9]/);
    expect(body).toContain('@\u200boctocat');
    expect(body).toContain('@\u200borg/team');
    expect(body).toContain('a@b.c');
    expect(body).toContain('`@keep`');
  });

  it('loads no image from elsewhere', () => {
    const body = pullRequestBody(
      '![track](https://evil.example/p.gif) <img src="https://evil.example/q.png"> <IMG src=x>',
      { artifactUrl: URL },
    );
    expect(body).toBe(
      '[track](https://evil.example/p.gif) &lt;img src="https://evil.example/q.png"> &lt;IMG src=x>',
    );
  });

  it('stays under GitHub’s limit, cut at a line, saying where the whole report is', () => {
    const report = Array.from({ length: 5_000 }, (_, i) => `| ${String(i)} | story | done |`).join(
      '\n',
    );
    expect(report.length).toBeGreaterThan(BODY_LIMIT);
    const body = pullRequestBody(report, { artifactUrl: URL });
    expect(body.length).toBeLessThanOrEqual(BODY_LIMIT);
    expect(body).toContain(`the whole report is in this run's artifact: ${URL}`);
    const kept = body.slice(0, body.indexOf('\n\n---\n'));
    expect(report.startsWith(kept)).toBe(true);
    expect(report.slice(kept.length).startsWith('\n')).toBe(true);
    expect(pullRequestBody('short', { artifactUrl: URL })).toBe('short');
  });
});
