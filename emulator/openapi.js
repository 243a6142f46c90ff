'use strict';
/** The OpenAPI 3 description served (without auth) at GET /api/openapi.json. */
function buildOpenApi(baseUrl) {
	const err = { $ref: '#/components/responses/Error' };
	const idParam = { name: 'taskId', in: 'path', required: true, schema: { type: 'string' } };
	return {
		openapi: '3.0.3',
		info: { title: 'Document OCR API (emulator)', version: '1.1.0' },
		servers: [{ url: baseUrl }],
		security: [{ bearerAuth: [] }],
		paths: {
			'/api/ocr': {
				post: {
					summary: 'Submit a job',
					'x-required-scope': 'submit',
					requestBody: {
						required: true,
						content: {
							'application/json': {
								schema: {
									type: 'object',
									required: ['imageBase64'],
									properties: {
										imageBase64: {
											type: 'string',
											description: 'Base64 file bytes or data:image/<type>;base64,<data>',
										},
										filename: { type: 'string' },
										provider: {
											type: 'string',
											enum: ['provider-async', 'provider-sync'],
											default: 'provider-async',
										},
										documentType: {
											type: 'string',
											enum: ['general', 'invoice'],
											default: 'general',
										},
									},
								},
							},
						},
					},
					responses: {
						200: {
							description: 'Accepted',
							content: {
								'application/json': {
									schema: {
										type: 'object',
										properties: {
											success: { type: 'boolean' },
											taskId: { type: 'string' },
											provider: { type: 'string' },
										},
									},
								},
							},
						},
						401: err,
						402: err,
						413: err,
						415: err,
						429: err,
					},
				},
			},
			'/api/tasks': {
				get: {
					summary: 'List tasks',
					'x-required-scope': 'read',
					parameters: [
						{ name: 'page', in: 'query', schema: { type: 'integer', default: 1, minimum: 1 } },
						{
							name: 'pageSize',
							in: 'query',
							schema: { type: 'integer', default: 20, minimum: 1, maximum: 100 },
						},
						{ name: 'status', in: 'query', schema: { type: 'string' } },
					],
					responses: { 200: { description: 'Task list' }, 401: err, 403: err },
				},
			},
			'/api/tasks/{taskId}': {
				get: {
					summary: 'Get a task',
					'x-required-scope': 'read',
					parameters: [idParam],
					responses: {
						200: { description: 'Task detail; includes resultText when done' },
						404: err,
					},
				},
				delete: {
					summary: 'Delete a task and its files',
					'x-required-scope': 'export',
					parameters: [idParam],
					responses: { 200: { description: 'Deleted' }, 404: err },
				},
			},
			'/api/export/{taskId}/{format}': {
				get: {
					summary: 'Export a completed task',
					'x-required-scope': 'ocr:read',
					parameters: [
						idParam,
						{
							name: 'format',
							in: 'path',
							required: true,
							schema: { type: 'string', enum: ['docx', 'xlsx', 'pdf'] },
						},
					],
					responses: { 200: { description: 'Binary export' }, 404: err, 409: err },
				},
			},
		},
		components: {
			securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
			responses: { Error: { description: 'Error' } },
		},
	};
}

module.exports = { buildOpenApi };
