import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{readFileSync as t}from"node:fs";function o(){try{let e=t(new URL("../../package.json",import.meta.url),"utf8"),r=JSON.parse(e);return typeof r.version=="string"?r.version:"0.0.0"}catch{return"0.0.0"}}export{o as a};
