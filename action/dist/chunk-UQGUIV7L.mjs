import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{f as d,g as e,h as f,i as g}from"./chunk-K6XOAPP3.mjs";import{a,b,c}from"./chunk-ERKFLSW6.mjs";import"./chunk-6CAOEPTH.mjs";import"./chunk-PRSS46TD.mjs";export{a as clean,e as clip,d as columns,f as fit,b as oneLine,c as textLines,g as wrap};
