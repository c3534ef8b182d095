import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
function o(t){return{total:t.length,done:t.filter(n=>n.done).length}}function l(t){let n=t.flatMap(e=>e.tasks);return{total:n.length,done:n.filter(e=>e.done).length}}export{o as a,l as b};
