// The body of the pull request the job opens from ralph/<change>: ralphtool's report (already
// through its redactor) made safe to post on GitHub unattended. Pure.

/** GitHub refuses a pull request body longer than this (characters). */
export const BODY_LIMIT = 65_536;

/**
 * The report as a body: @mentions cannot notify anyone (a zero-width space after the @),
 * images from elsewhere are not loaded by readers' browsers (`![a](u)` becomes the link `[a](u)`,
 * `<img …>` is shown as text), and a report longer than GitHub's limit is cut at a line with a
 * note saying where the whole report is (`artifactUrl`, the run's page).
 * @param {string} report
 * @param {{ artifactUrl: string | null, limit?: number }} options
 * @returns {string}
 */
export function pullRequestBody(report, options) {
  const limit = options.limit ?? BODY_LIMIT;
  const safe = report
    .replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, '$1@\u200b')
    .replace(/!\[/g, '[')
    .replace(/<(img|picture|source|video|audio|iframe)\b/gi, '&lt;$1');
  if (safe.length <= limit) return safe;
  const where = options.artifactUrl
    ? `the whole report is in this run's artifact: ${options.artifactUrl}`
    : "the whole report is in the job's artifact";
  const note = (cut) =>
    `\n\n---\n_The report is cut here (${String(cut)} of ${String(safe.length)} characters): ${where}._\n`;
  let cut = limit - note(safe.length).length;
  const lineEnd = safe.lastIndexOf('\n', cut);
  if (lineEnd > 0) cut = lineEnd;
  return `${safe.slice(0, cut)}${note(cut)}`;
}
