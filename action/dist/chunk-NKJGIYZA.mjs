import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{a as k,b as L,c as H}from"./chunk-6R47OTSK.mjs";import"./chunk-SCQBBHGS.mjs";import"./chunk-63OSTWGB.mjs";import"./chunk-LHHLNIIL.mjs";import{a as R}from"./chunk-YD4W2HVF.mjs";import"./chunk-5XT7Z47G.mjs";import"./chunk-ICFXKNOB.mjs";import{a as b}from"./chunk-XW6FMPXL.mjs";import"./chunk-HXBH2XYS.mjs";import"./chunk-HNYZMFPS.mjs";import"./chunk-7H7BDYBE.mjs";import"./chunk-JV4RGT5F.mjs";import"./chunk-DW7WEIFO.mjs";import"./chunk-WT2QHLE5.mjs";import"./chunk-BDQPW37H.mjs";import"./chunk-4TKTUPPY.mjs";import"./chunk-USRYJGLG.mjs";import{c as E}from"./chunk-BLOUMXWW.mjs";import"./chunk-TFJ2Y2GX.mjs";import"./chunk-4V6Q4GXG.mjs";import"./chunk-O47ZU7UY.mjs";import{e as N}from"./chunk-KNREHXIC.mjs";import"./chunk-ZGDVPVIZ.mjs";import"./chunk-PAGXLVFT.mjs";import"./chunk-4FQPENNH.mjs";import{a as g,c as w}from"./chunk-7LV6RV64.mjs";import"./chunk-22WZYOSW.mjs";import"./chunk-H7ZX5Q2L.mjs";import"./chunk-2ZJRK33J.mjs";import"./chunk-UP6XX6X7.mjs";import"./chunk-3QFAEUPG.mjs";import"./chunk-VPFBZ3HQ.mjs";import"./chunk-LQ4GSBNY.mjs";import{a as C}from"./chunk-CYVQ5Y26.mjs";import{F as $,m as T}from"./chunk-DPLXXFZT.mjs";import"./chunk-FKKLTDGL.mjs";import{h as j}from"./chunk-RYODTQO4.mjs";import"./chunk-RJNDLR5W.mjs";import"./chunk-UQ7SIZ6J.mjs";import"./chunk-XTTLN7NN.mjs";import"./chunk-XKBQCTJ3.mjs";import"./chunk-APWREJVS.mjs";import"./chunk-VM6PBJ3K.mjs";import"./chunk-26G2UVZU.mjs";import{o as y}from"./chunk-ANPRY4B7.mjs";import"./chunk-YUBJHZKG.mjs";import"./chunk-MSWA7YSX.mjs";import"./chunk-5MDE65YU.mjs";import"./chunk-QR5WHLJV.mjs";import"./chunk-64NFS2YV.mjs";import"./chunk-2LY6YK67.mjs";import"./chunk-RHCDGKG4.mjs";import"./chunk-FYSGTSIY.mjs";import{f as x}from"./chunk-NIZ7CEBR.mjs";import"./chunk-ZNBIDO7J.mjs";import"./chunk-K6XOAPP3.mjs";import"./chunk-ERKFLSW6.mjs";import"./chunk-6CAOEPTH.mjs";import{B as v,r as d,x as A}from"./chunk-BXTXKDJQ.mjs";import{a as p}from"./chunk-XGH4U33R.mjs";import{d as f}from"./chunk-2BTBCVI7.mjs";import"./chunk-BKKTH7ME.mjs";import"./chunk-PRSS46TD.mjs";import{fileURLToPath as _}from"node:url";function q(){return _(new URL("./agent.js",import.meta.url))}function S(e,t=q()){return[e,t].map(p).join(" ")}function I(e){return[e,"--test"].map(p).join(" ")}function O(e){let t=["ralphtool demo: the real loop, checkpoints and completion choice on an example project.","The agent is scripted (no AI, no API key needed): it edits the files story by story,","and fails one attempt on purpose so that you see the revert and the retry.","",`Example repository: ${e.dir}`,`Change: ${e.change} (${e.stories} stories), on branch main`];return e.interactive&&t.push("","In the UI: Enter opens the change, r runs it, q quits."),`${t.join(`
`)}

`}function W(e){return`Demo: Enter opens ${e}, then r runs it (a scripted agent, no AI); q quits.`}function D(e){let{dir:t,change:n}=e,r=`ralph/${n}`,o=["",`The demo repository stays in place: ${t}`];return e.run==="none"?o.push("  nothing was run in it; open the UI there to run the change:",`    ralphtool -C ${t}`):e.run==="unfinished"?o.push("  the run was stopped before it ended; it is recorded, to go on or end it:",`    ralphtool -C ${t} resume ${n}`,`    ralphtool -C ${t} finish ${n} --cleanup   (or --keep)`):e.onRunBranch?o.push(`  its work is on ${r}, one commit per story:`,`    git -C ${t} log --oneline ${r}`):o.push("  its work is back on main as uncommitted changes (new files are untracked):",`    git -C ${t} status`,`    git -C ${t} diff`),e.savedAttemptRef!==null&&o.push("  the work of the reverted attempt was saved:",`    git -C ${t} show --stat ${e.savedAttemptRef}`),o.push("  what ralphtool recorded, and the project tests:",`    ralphtool -C ${t} status`,`    cd ${t} && npm test`,`  remove it when you are done: rm -rf ${t}`,"","On your own project, with Claude Code:",`  1. ${e.installClaude}`,"     and log in by running `claude` once","  2. in your git repository, create an OpenSpec change with its tasks.md","     (`openspec init`, then `openspec new change <name>`)","  3. ralphtool doctor           checks git, claude and the repository","     ralphtool run <change>     runs the loop (or just `ralphtool` for the interactive UI)"),`${o.join(`
`)}
`}import{mkdir as Q,mkdtemp as V,realpath as z,rm as X,writeFile as Z}from"node:fs/promises";import ee from"node:os";import h from"node:path";var l="add-text-helpers",M=`${JSON.stringify({name:"textkit",version:"0.1.0",private:!0,description:"Tiny text helpers (the ralphtool demo project)",type:"module",main:"src/index.js",scripts:{test:"node --test"}},null,2)}
`,F="# textkit\n\nTiny text helpers, without dependencies. This is the example project of\n`ralphtool demo`.\n\n## Helpers\n\n- `slugify(text)`: `'Hello World'` \u2192 `'hello-world'`\n\nRun the tests with `npm test` (or `node --test`).\n",G=`/** Lowercase words joined by dashes, for URLs and file names. */
export function slugify(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
`,B=`import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/index.js';

test('slugify joins lowercase words with dashes', () => {
  assert.equal(slugify('  Hello, World! '), 'hello-world');
});
`,Y="## Why\n\ntextkit only knows how to slugify. Its users keep writing the same three\nhelpers by hand: title case, word count and truncation.\n\n## What Changes\n\n- Add `titleCase(text)`, `countWords(text)` and `truncate(text, max)`,\n  each in its own module, exported from `src/index.js` and tested.\n- List the new helpers in the README.\n\n## Impact\n\n- New files under `src/` and `test/`; `src/index.js` and `README.md` change.\n- No dependencies are added: the tests use `node --test`.\n",J="## 1. Title case\n\n- [ ] 1.1 Add `titleCase(text)` in `src/title-case.js`\n- [ ] 1.2 Export it from `src/index.js`\n- [ ] 1.3 Test it in `test/title-case.test.js`\n\n## 2. Word count\n\n- [ ] 2.1 Add `countWords(text)` in `src/count-words.js` (empty text has 0 words)\n- [ ] 2.2 Export it from `src/index.js`\n- [ ] 2.3 Test it in `test/count-words.test.js`\n\n## 3. Truncate\n\n- [ ] 3.1 Add `truncate(text, max)` in `src/truncate.js`, ending cut text with `\u2026`\n- [ ] 3.2 Export it from `src/index.js`\n- [ ] 3.3 Test it in `test/truncate.test.js`\n\n## 4. Documentation\n\n- [ ] 4.1 List the new helpers in `README.md`\n",K=`## ADDED Requirements

### Requirement: Title case

The library SHALL provide \`titleCase(text)\`, which capitalises the first letter of every word.

#### Scenario: Every word is capitalised

- **WHEN** \`titleCase('hello big world')\` is called
- **THEN** it returns \`'Hello Big World'\`

### Requirement: Word count

The library SHALL provide \`countWords(text)\`, which counts the words separated by whitespace.

#### Scenario: Extra spaces are ignored

- **WHEN** \`countWords('  two   words ')\` is called
- **THEN** it returns \`2\`

#### Scenario: Empty text

- **WHEN** \`countWords('')\` is called
- **THEN** it returns \`0\`

### Requirement: Truncate

The library SHALL provide \`truncate(text, max)\`, which shortens text longer than \`max\` characters and ends it with \`\u2026\`.

#### Scenario: Long text is cut

- **WHEN** \`truncate('abcdefgh', 5)\` is called
- **THEN** it returns \`'abcd\u2026'\`

#### Scenario: Short text is unchanged

- **WHEN** \`truncate('abc', 5)\` is called
- **THEN** it returns \`'abc'\`
`;function P(){let e=`openspec/changes/${l}`;return{".gitignore":`node_modules/
`,"package.json":M,"README.md":F,"src/index.js":`export { slugify } from './slugify.js';
`,"src/slugify.js":G,"test/slugify.test.js":B,"openspec/specs/.gitkeep":"",[`${e}/proposal.md`]:Y,[`${e}/tasks.md`]:J,[`${e}/specs/text-helpers/spec.md`]:K}}var te=[["user.name","ralphtool demo"],["user.email","demo@ralphtool.invalid"],["commit.gpgsign","false"]];async function U(e){let t=await z(await V(h.join(e.parent??ee.tmpdir(),"ralphtool-demo-")));try{for(let[r,o]of Object.entries(P())){let s=h.join(t,r);await Q(h.dirname(s),{recursive:!0}),await Z(s,o)}let n={cwd:t,timeoutMs:e.timeoutMs,baseEnv:e.baseEnv,config:T};await d(n,["init","-q"]),await d(n,["symbolic-ref","HEAD","refs/heads/main"]);for(let[r,o]of te)await d(n,["config",r,o]);return await d(n,["add","-A"]),await d(n,["commit","-q","--no-verify","-m",`textkit: example project and the ${l} change`]),{dir:t,change:l}}catch(n){throw await X(t,{recursive:!0,force:!0}),n}}var u=130;async function Oe(e,t){let n=!t.json&&e.stdin.isTTY===!0&&e.stdout.isTTY===!0,r=m=>{(t.json?e.stderr:e.stdout).write(m)},o=x.commandTimeoutMs,s=await U({timeoutMs:o,baseEnv:e.env}),c=await N(s.dir,s.change);r(O({dir:s.dir,change:s.change,stories:C(c.stories).total,interactive:n}));let i=ne(t.json),a;try{a=n?await re(e,s,i):await b(e,{cwd:s.dir,changes:[s.change],flags:i,mode:"start"})}catch(m){throw r(`
The demo repository is left at ${s.dir}
`),m}if(r(w(await se(s,o,e.env),oe(e.reach??g))),a===u&&n)throw new f(u);return a}function oe(e){return e.byPath?{...e,ralphtool:e.byPath}:e}function ne(e){return{agent:"command",agentCommand:S(process.execPath),verify:[I(process.execPath)],agentTimeout:"60s",idleTimeout:"30s",onComplete:"keep",json:e}}async function re(e,t,n){let r={...y(n,!0),onComplete:"ask"},o=H(t.dir,r,{...e.env}),s=await k(e.processEnv??e.env),c={...o,runOptions:{...o.runOptions,agent:"demo (scripted, no AI)",note:W(t.change)}},i=L(o);try{let a=await s(c,{leave:i.leave});return i.terminated()?u:a}finally{i.remove()}}async function se(e,t,n){let r={cwd:e.dir,timeoutMs:t,baseEnv:n},o=await A(r),c=(o?await R(o,"",t,n):[]).find(m=>m.change===e.change),i=await v(r),a=await $(r,e.change);return D({dir:e.dir,change:e.change,run:c===void 0?"none":c.state==="finished"?"finished":"unfinished",onRunBranch:i.kind==="branch"&&i.name===j(e.change),savedAttemptRef:a[0]??null,installClaude:E("claude")})}export{Oe as demoCommand};
