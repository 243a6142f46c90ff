'use strict';
/** Constants and small helpers shared by the emulator's core and its surfaces. */
const MB10 = 10 * 1024 * 1024;
const API_TYPES = ['pdf', 'png', 'jpeg', 'webp', 'tiff', 'gif'];
const V1_TYPES = ['pdf', 'png', 'jpeg', 'webp'];
const PROVIDERS = ['provider-async', 'provider-sync'];
const DOCUMENT_TYPES = ['general', 'invoice'];
const EXPORT_FORMATS = ['docx', 'xlsx', 'pdf'];
const FINAL = new Set(['done', 'failed']);
const DEFAULT_FAILURE_MESSAGE = 'Could not recognise the document (unreadable scan)';

/** Thrown after a handler has already answered (fail(), admin errors): nothing more to send. */
class HandledError extends Error {}

function isPlainObject(v) {
	return v !== null && typeof v === 'object' && !Array.isArray(v);
}

module.exports = {
	MB10,
	API_TYPES,
	V1_TYPES,
	PROVIDERS,
	DOCUMENT_TYPES,
	EXPORT_FORMATS,
	FINAL,
	DEFAULT_FAILURE_MESSAGE,
	HandledError,
	isPlainObject,
};
