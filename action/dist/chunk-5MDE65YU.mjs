import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{a as r}from"./chunk-QR5WHLJV.mjs";import{f as o}from"./chunk-K6XOAPP3.mjs";function l(t){return r(t,o)}export{l as a};
