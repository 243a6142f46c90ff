'use strict';
/**
 * Local, stateful emulator of the Document OCR service (see ./README.md, the module headers,
 * and DEFAULT_OPTIONS in ./emulator.js).
 *
 *   const { startEmulator, DEFAULT_KEYS, KEYS } = require('./emulator');
 *   const emu = await startEmulator({ msPerPage: 10 });
 *   ... emu.url, emu.apiUrl, emu.keys, emu.stats(), emu.ledger(), emu.fault({...}) ...
 *   await emu.close();
 */
const { Emulator, DEFAULT_OPTIONS, API_TYPES, V1_TYPES, ROUTES } = require('./emulator.js');
const { DEFAULT_KEYS, KEYS, DEFAULT_ACCOUNTS, DEFAULT_USERS } = require('./store.js');
const { FAULT_KINDS } = require('./faults.js');
const { signPayload, signatureHeader } = require('./sign.js');
const { readZip, writeZip } = require('./zip.js');
const { errorPayload, STATUS_FOR_CODE } = require('./errors.js');

async function startEmulator(options = {}) {
	const emu = new Emulator(options);
	await emu.start();
	return emu;
}

module.exports = {
	startEmulator,
	Emulator,
	DEFAULT_OPTIONS,
	DEFAULT_KEYS,
	KEYS,
	DEFAULT_ACCOUNTS,
	DEFAULT_USERS,
	FAULT_KINDS,
	API_TYPES,
	V1_TYPES,
	ROUTES,
	STATUS_FOR_CODE,
	errorPayload,
	signPayload,
	signatureHeader,
	readZip,
	writeZip,
};
