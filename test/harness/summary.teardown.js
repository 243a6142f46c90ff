'use strict';
module.exports = require('./summary').teardown;
