export const BUNDLE: string;
export function bundleText(): Promise<string>;
