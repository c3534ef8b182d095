import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{b as o}from"./chunk-2BTBCVI7.mjs";import{statSync as e}from"node:fs";function s(t){let r;try{r=e(t).isDirectory()}catch{r=!1}if(!r)throw new o(`${t} is not a directory (check -C)`)}export{s as a};
