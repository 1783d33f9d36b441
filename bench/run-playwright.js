// Peer 2: the journey as exported by `bflow export playwright`, run with playwright-core.
// Usage: node run-playwright.js SCRIPT.js [ORIGIN] [name=value ...]
// The exported script is run unchanged except that ORIGIN (default http://127.0.0.1:4780)
// replaces the origin it was exported against; it resolves `playwright-core` from bench/.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

const RECORDED_ORIGIN = 'http://127.0.0.1:4780';

const [scriptPath, origin = RECORDED_ORIGIN, ...inputs] = process.argv.slice(2);
if (!scriptPath) throw new Error('usage: node run-playwright.js SCRIPT.js [ORIGIN] [name=value ...]');
const source = fs.readFileSync(scriptPath, 'utf8').split(RECORDED_ORIGIN).join(origin);
// The exported script reads its inputs from process.argv.slice(2).
process.argv = [process.argv[0], scriptPath, ...inputs];
const script = new Module(path.resolve(scriptPath), module);
script.filename = path.resolve(scriptPath);
script.paths = Module._nodeModulePaths(__dirname);
script._compile(source, script.filename);
