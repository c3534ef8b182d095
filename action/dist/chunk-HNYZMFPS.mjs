import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
var t=[130,1,2,3,6,4,5];function c(i){let n=0;for(let o of i){if(o===0)continue;let e=t.includes(o)?o:1;(n===0||t.indexOf(e)<t.indexOf(n))&&(n=e)}return n}export{c as a};
