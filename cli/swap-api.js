#!/usr/bin/env node
// `swap-api`: the command-line tool, run from the checkout (npx swap-api …). It runs the TypeScript
// sources through ts-node (transpile only), like the project's other scripts.
"use strict";
const { join } = require("node:path");
require("ts-node").register({ transpileOnly: true, project: join(__dirname, "..", "tsconfig.json") });
require("./main.ts");
