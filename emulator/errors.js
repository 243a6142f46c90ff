'use strict';
/**
 * Error bodies in the selectable shapes.
 *   flat   { "error": code, "message": text }            (default)
 *   nested { "error": { "code": code, "message": text } }
 *   code   { "code": code, "message": text }
 *   text   text/plain "<code>: <message>"
 */
const ERROR_SHAPES = ['flat', 'nested', 'code', 'text'];

const STATUS_FOR_CODE = {
	bad_request: 400,
	invalid_schema: 400,
	invalid_format: 400,
	missing_api_key: 401,
	invalid_api_key: 401,
	insufficient_pages: 402,
	user_banned: 403,
	insufficient_scope: 403,
	not_found: 404,
	method_not_allowed: 405,
	task_not_ready: 409,
	payload_too_large: 413,
	unsupported_media_type: 415,
	ocr_failed: 422,
	rate_limited: 429,
	daily_quota_exceeded: 429,
	internal_error: 500,
	bad_gateway: 502,
	service_unavailable: 503,
	timeout: 504,
};

function errorPayload(shape, code, message) {
	switch (shape) {
		case 'nested':
			return {
				contentType: 'application/json; charset=utf-8',
				body: JSON.stringify({ error: { code, message } }),
			};
		case 'code':
			return {
				contentType: 'application/json; charset=utf-8',
				body: JSON.stringify({ code, message }),
			};
		case 'text':
			return { contentType: 'text/plain; charset=utf-8', body: `${code}: ${message}` };
		case 'flat':
		default:
			return {
				contentType: 'application/json; charset=utf-8',
				body: JSON.stringify({ error: code, message }),
			};
	}
}

module.exports = { errorPayload, ERROR_SHAPES, STATUS_FOR_CODE };
