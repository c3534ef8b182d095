import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
function h(r,f){let a=[];for(let o of r)o.forEach((t,n)=>{a[n]=Math.max(a[n]??0,f(t))});return r.map(o=>o.map((t,n)=>n===o.length-1?t:t+" ".repeat((a[n]??0)-f(t))).join("  ").trimEnd())}export{h as a};
