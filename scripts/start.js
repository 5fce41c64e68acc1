#!/usr/bin/env node
'use strict';
/**
 * `npm start`: compile what changed (usually nothing), then run the app in this same
 * process, so a restart pays for neither a second Node start nor a type check.
 */
const { join } = require('node:path');
const { build, buildWeb } = require('./build');

build({ quiet: true });
buildWeb({ quiet: true });
process.setSourceMapsEnabled(true);
require(join(__dirname, '..', 'dist', 'src', 'main.js'));
