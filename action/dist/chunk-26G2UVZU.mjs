import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{a as c}from"./chunk-MSWA7YSX.mjs";var i=["story","answer","previous-failure","scope","tasks","change","scenarios","verify","instructions","learnings","signals"],a=["story","tasks","answer","signals"],p=/\{\{\s*([^{}\s]*)\s*\}\}/g;function u(t){let n=new Set([...t.matchAll(p)].map(e=>e[1]??"")),s=new Set(i);return{missing:a.filter(e=>!n.has(e)),unknown:[...n].filter(e=>!s.has(e))}}function g(t,n){let{missing:s,unknown:e}=u(t);if(s.length===0&&e.length===0)return null;let o=[];return s.length>0&&o.push(`missing ${s.map(r).join(", ")}`),e.length>0&&o.push(`unknown ${e.map(l=>`${r(l)}${m(l)}`).join(", ")}`),`${n}: ${o.join("; ")}: a prompt template needs ${a.map(r).join(", ")} and may name ${i.filter(l=>!a.includes(l)).map(r).join(", ")} (docs/contract.md, "The prompt template")`}function h(t,n){return`${t.replace(p,(e,o)=>i.includes(o)?n[o]??"":"").replace(/\r\n/g,`
`).replace(/[ \t]+\n/g,`
`).replace(/\n{3,}/g,`

`).trim()}
`}function r(t){return`{{${t}}}`}function m(t){let n=t.toLowerCase().replace(/_/g,"-"),s=i.includes(n)?n:c(n,i);return s===null?"":` (did you mean ${r(s)}?)`}export{i as a,g as b,h as c};
