'use strict';
const crypto = require('node:crypto');
/**
 * Workflow pieces the benchmarks share: a node, a straight chain of connections, and the nodes a
 * user builds without the package (Extract From File to Base64, HTTP Request POST /api/ocr, HTTP
 * Request GET /api/tasks/{id}), whose key lives in an n8n Bearer Auth credential as a user would
 * keep it, never in the node's parameters (n8n prints those in its error log when a request fails).
 */

/** A node; `position` is [x, y] or x alone. */
const node = (id, name, type, typeVersion, position, parameters, extra = {}) => ({
	id,
	name,
	type,
	typeVersion,
	position: Array.isArray(position) ? position : [position, 0],
	parameters,
	...extra,
});

/** Connections of `names`, each to the next. */
const chain = (...names) => {
	const connections = {};
	for (let i = 0; i + 1 < names.length; i++)
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	return connections;
};

/** The baselines' n8n Bearer Auth credential (its token is the emulator's full key). */
const BEARER = {
	credentials: { httpBearerAuth: { id: 'ocrBenchBearer01', name: 'bench: Bearer key' } },
};
const bearerCredential = (token) => ({
	...BEARER.credentials.httpBearerAuth,
	type: 'httpBearerAuth',
	data: { token },
});

const AUTH = { authentication: 'genericCredentialType', genericAuthType: 'httpBearerAuth' };

/** Without the package: the document as Base64, its submission, and one read of its task. */
const withoutPackage = (serviceUrl) => ({
	toBase64: {
		operation: 'binaryToPropery',
		binaryPropertyName: 'data',
		destinationKey: 'imageBase64',
		options: { keepSource: 'json' },
	},
	submit: {
		method: 'POST',
		url: `${serviceUrl}/api/ocr`,
		...AUTH,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ imageBase64: $json.imageBase64, filename: $json.fileName }) }}',
		options: {},
	},
	getTask: {
		method: 'GET',
		url: `=${serviceUrl}/api/tasks/{{ $json.taskId }}`,
		...AUTH,
		options: {},
	},
});

/** Static data of a node that remembers `count` documents, in the shape saved before issue 29. */
function rememberedStaticData(count) {
	const submitted = {};
	for (let i = 0; i < count; i++) {
		const digest = crypto.createHash('sha256').update(`old ${i}`).digest('hex');
		submitted[`task:0123456789abcdef:${digest}`] = {
			kind: 'task',
			id: `tsk_old_${i}`,
			at: 1_760_000_000_000 + i,
		};
	}
	return count === 0 ? {} : { 'node:Document OCR': { submitted } };
}

module.exports = {
	rememberedStaticData,
	node,
	chain,
	BEARER,
	bearerCredential,
	withoutPackage,
};
