'use strict';
/**
 * For tests that look at what is still held: V8's full collection, exposed for this process (jest
 * runs without --expose-gc), and a turn of the event loop (so that nothing of a finished request
 * is left on the stack). Plain JavaScript, so that the fast tier's TypeScript, linted by n8n's
 * rules for nodes, can use Node's modules through it.
 */
const v8 = require('node:v8');
const vm = require('node:vm');

function collector() {
	v8.setFlagsFromString('--expose-gc');
	return vm.runInNewContext('gc');
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

module.exports = { collector, nextTurn };
