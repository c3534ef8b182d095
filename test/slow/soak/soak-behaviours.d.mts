// Types of soak-behaviours.mjs (plain JS, shared by the agent and the checker).

export declare const BEHAVIOURS: ReadonlyArray<readonly [string, number]>;
export declare const HOSTILE_BEHAVIOURS: ReadonlyArray<readonly [string, number]>;
export declare const ACCEPTING: ReadonlySet<string>;
export declare const EXPECTED_KINDS: Readonly<Record<string, readonly string[]>>;

export declare function mulberry32(seed: number): () => number;
export declare function attemptRandom(
  seed: number | string,
  storyId: string,
  attempt: number,
): () => number;
export declare function pickBehaviour(random: () => number, hostile?: boolean): string;
export declare function storyFile(storyId: string): string;
export declare function storyFileContent(storyId: string, attempt: number): string;
export declare function markerFile(storyId: string, attempt: number): string;
export declare function markerContent(storyId: string, attempt: number, behaviour: string): string;
export declare function countStoryTasks(text: string, storyId: string): number;
export declare function tickStory(text: string, storyId: string, limit?: number): string;
