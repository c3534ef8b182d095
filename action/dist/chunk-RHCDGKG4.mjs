import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{b as f}from"./chunk-2BTBCVI7.mjs";var c=new Set(["$","`",'"',"\\",`
`]);function h(i,u="--agent-command"){let l=[],t="",o=!1,n=null;for(let s=0;s<i.length;s+=1){let e=i.charAt(s);if(n==="'"){e==="'"?n=null:t+=e;continue}if(e==="\\"){if(s+1>=i.length)throw new f(`${u} ends with a lone backslash: remove it or quote it.`);let r=i.charAt(++s);n==='"'&&!c.has(r)?t+=e+r:r!==`
`&&(t+=r),o=!0;continue}if(n==='"'){e==='"'?n=null:t+=e;continue}e==="'"||e==='"'?(n=e,o=!0):/\s/.test(e)?(o&&l.push(t),t="",o=!1):(t+=e,o=!0)}if(n)throw new f(`${u} has an unclosed ${n} quote: close it or escape it.`);return o&&l.push(t),l}export{h as a};
