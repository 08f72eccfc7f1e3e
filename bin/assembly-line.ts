#!/usr/bin/env node
console.log("assembly-line");
