#!/usr/bin/env node
import { createRequire as __ralphtoolRequire } from 'node:module'; const require = __ralphtoolRequire(import.meta.url);
import{a as e}from"./chunk-CHW4AT5U.mjs";import"./chunk-PRSS46TD.mjs";if(process.argv.length===3&&process.argv[2]==="--version")process.stdout.write(`${e()}
`);else{let{default:o}=await import("node:module");o.enableCompileCache?.(),await import("./chunk-YPQ3FZR3.mjs")}
