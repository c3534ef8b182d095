// Where the engine keeps each change's files, alone: the engine's second door (beside index.ts)
// for callers on every start of ralphtool (`list`), which must not load the engine, its state
// schemas and their validator just to find out that no run is recorded (issue: instant start).
export { runPaths, runsRoot } from './paths.js';
