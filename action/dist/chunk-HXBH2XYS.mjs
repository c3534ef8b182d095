import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{createInterface as c}from"node:readline/promises";async function i(e){let o=c({input:e.input,output:e.output,terminal:!0});o.on("SIGINT",e.onInterrupt);let l=new Promise(n=>o.once("close",()=>n(null))),r=n=>Promise.race([o.question(n).catch(()=>null),l]),a=e.outcome==="complete"?`\`ralphtool finish ${e.change} --cleanup|--keep\` decides later`:`\`ralphtool resume ${e.change}\` goes on, \`ralphtool finish ${e.change}\` ends it`;try{for(e.output.write(`
The loop ended (${e.outcome}). What now?
  c  cleanup: back to ${e.original}, all the work left as uncommitted changes
  k  keep:    stay on ${e.branch}, one commit per story
  l  later:   leave the run on ${e.branch} at its last checkpoint (${a})
`);;){let n=await r("Cleanup or keep? [C/k/l] ");if(n===null)return null;let t=n.trim().toLowerCase();if(t===""||t==="c"||t==="cleanup")return"cleanup";if(t==="k"||t==="keep")return"keep";if(t==="l"||t==="later")return null;e.output.write(`Please answer c (cleanup), k (keep) or l (later).
`)}}finally{o.close()}}export{i as a};
