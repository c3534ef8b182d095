import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
var i=/\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g,c=/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;function o(e){return e.replace(i,"").replace(/\r\n/g,`
`).replace(c,"\uFFFD")}function u(e){return o(e).replace(/\t/g,"  ")}function s(e,r=" "){return u(e).trim().replace(/\s*\n\s*/g,r)}function a(e){let r=u(e).split(`
`).map(t=>t.trimEnd()),n=[];for(let t of r)t===""&&(n.length===0||n[n.length-1]==="")||n.push(t);for(;n.length>0&&n[n.length-1]==="";)n.pop();return n}export{u as a,s as b,a as c};
