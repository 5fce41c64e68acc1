#!/usr/bin/env node
'use strict';
/** `npm run builder`: compile what changed, then run builders alone (src/builder.ts) in this process. */
const { join } = require('node:path');
const { build } = require('./build');

build({ quiet: true });
process.setSourceMapsEnabled(true);
require(join(__dirname, '..', 'dist', 'src', 'builder.js'));
