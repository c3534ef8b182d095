export const BODY_LIMIT: number;
export function pullRequestBody(
  report: string,
  options: { artifactUrl: string | null; limit?: number },
): string;
