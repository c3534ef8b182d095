export const BUNDLE_DIR: string;
export const BUNDLE: string;
export function bundleFiles(): Promise<Map<string, string>>;
export function committedFiles(): Map<string, string>;
export function differences(a: Map<string, string>, b: Map<string, string>): string[];
