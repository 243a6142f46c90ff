'use strict';
/**
 * The action node as an AI-agent tool in real n8n 2.x: a Manual Trigger (run headless through
 * n8n's REST API, as the editor runs it) starts an AI Agent whose chat model is the "OpenAI Chat
 * Model" sub-node, pointed (credential Base URL) at a tiny fake OpenAI chat-completions server on
 * loopback, and whose tools are Document OCR Tool nodes with parameters filled by the model
 * through `$fromAI()`.
 *
 * The fake model answers the first request of a run with a call of the tool the test names,
 * using the tool name and the JSON-Schema arguments n8n sent in `tools`, and the second request
 * (which carries the tool result) with a final answer quoting that result. It records what n8n
 * sent, so the test checks what a real model would have seen; the tool definitions are written
 * into docs/agent-tool.md.
 *
 * A suite of the shared n8n (test/e2e/shared.e2e.js): its runs go over n8n's REST API from the
 * Manual Trigger (executeOverRest) while the other suites keep `n8n execute`.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { request } = require('undici');
const { startNode, nodeOutput, KEYS, CREDENTIAL_ID } = require('../../../scripts/n8n-instance');
const documents = require('../../../emulator/documents');
const { startFileServer } = require('../../support/file-server');
const { DocumentOcr } = require('../../../dist/nodes/DocumentOcr/DocumentOcr.node.js');
const {
	taskIdField,
	documentFields,
} = require('../../../dist/nodes/DocumentOcr/actions/shared.description.js');

const DOC = path.resolve(__dirname, '../../../docs/agent-tool.md');

const OPENAI_CREDENTIAL = { id: 'fakeOpenAiLoop01', name: 'OpenAI (fake, loopback)' };
const OCR_CREDENTIAL = {
	documentOcrApi: { id: CREDENTIAL_ID, name: 'Document OCR (local emulator)' },
};
const DOCUMENT_TEXT = 'Delivery note 7731: 12 pallets of recycled paper, signed by J. Okafor';
const SCAN_TEXT = 'Parking permit 42, valid until 2027-03-31';
const MISSING_TASK = 'tsk_doesnotexist';

/** The node's own texts, as the editor and n8n's tool wrapper read them. */
const nodeDescription = new DocumentOcr().description;
const action = (resource, operation) =>
	nodeDescription.properties
		.find((p) => p.name === 'operation' && p.displayOptions.show.resource.includes(resource))
		.options.find((o) => o.value === operation).action;
const fieldDescription = (name) => documentFields.find((f) => f.name === name).description;
/** The name n8n's editor gives a tool node by default (NodeHelpers.makeNodeName). */
const toolNodeName = (resource, operation) =>
	`${action(resource, operation)} in ${nodeDescription.defaults.name}`;
/** n8n's nodeNameToToolName: the tool name the model sees. */
const toolName = (nodeName) => nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 64);

const GET_NODE = toolNodeName('task', 'get');
const LIST_NODE = toolNodeName('task', 'getMany');
const SUBMIT_NODE = toolNodeName('task', 'submit');
const RECOGNIZE_NODE = toolNodeName('document', 'recognize');
const COUNT_NODE = toolNodeName('document', 'countPages');
const URL_TEXT = 'Boarding pass: gate B12, seat 14C, departs 09:45';
const LIMIT_HELP = 'How many of the newest tasks to list, from 1 to 50';

/** What the editor writes for "Let the model define this parameter", with a description. */
const fromAi = (key, description, type = 'string') =>
	`={{ /*n8n-auto-generated-fromAI-override*/ $fromAI('${key}', \`${description}\`, '${type}') }}`;

/**
 * A fake OpenAI chat-completions endpoint. `behaviour` (set per test) decides: `tool` names the
 * tool the first turn calls, `args(tool, userText)` its arguments; a turn that carries a tool
 * result gets `answer(toolResultContent)`. Non-streamed and streamed (SSE) requests both work.
 */
async function startFakeOpenAi() {
	const fake = { requests: [], behaviour: undefined };
	let calls = 0;
	const reply = (body) => {
		const toolResults = body.messages.filter((m) => m.role === 'tool');
		if (toolResults.length > 0) {
			const content = toolResults[toolResults.length - 1].content;
			return {
				message: { role: 'assistant', content: fake.behaviour.answer(String(content)) },
				finishReason: 'stop',
			};
		}
		const tool = (body.tools ?? []).find((t) => t.function.name === fake.behaviour.tool);
		if (!tool) {
			return {
				message: { role: 'assistant', content: `No tool named ${fake.behaviour.tool} offered.` },
				finishReason: 'stop',
			};
		}
		const user = body.messages.filter((m) => m.role === 'user').pop();
		const userText = typeof user.content === 'string' ? user.content : JSON.stringify(user.content);
		const call = {
			id: `call_${++calls}`,
			type: 'function',
			function: {
				name: tool.function.name,
				arguments: JSON.stringify(fake.behaviour.args(tool.function, userText)),
			},
		};
		return {
			message: { role: 'assistant', content: null, tool_calls: [call] },
			finishReason: 'tool_calls',
		};
	};
	const server = http.createServer((req, res) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			const text = Buffer.concat(chunks).toString('utf8');
			let body;
			try {
				body = text ? JSON.parse(text) : undefined;
			} catch {
				body = text;
			}
			fake.requests.push({ method: req.method, url: req.url, body });
			if (req.method !== 'POST' || !req.url.endsWith('/chat/completions') || !fake.behaviour) {
				res.writeHead(404, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			const { message, finishReason } = reply(body);
			const base = {
				id: `chatcmpl-fake-${fake.requests.length}`,
				created: Math.floor(Date.now() / 1000),
				model: body.model,
			};
			const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
			if (!body.stream) {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(
					JSON.stringify({
						...base,
						object: 'chat.completion',
						choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
						usage,
					}),
				);
				return;
			}
			res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
			const send = (choices, extra = {}) =>
				res.write(
					`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`,
				);
			const delta = message.tool_calls
				? {
						role: 'assistant',
						content: null,
						tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })),
					}
				: { role: 'assistant', content: message.content };
			send([{ index: 0, delta, finish_reason: null }]);
			send([{ index: 0, delta: {}, finish_reason: finishReason }]);
			if (body.stream_options?.include_usage) send([], { usage });
			res.end('data: [DONE]\n\n');
		});
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	fake.url = `http://127.0.0.1:${server.address().port}`;
	fake.chatRequests = (since = 0) =>
		fake.requests
			.slice(since)
			.filter((r) => r.method === 'POST' && r.url.endsWith('/chat/completions'));
	fake.close = () => new Promise((resolve) => server.close(resolve));
	return fake;
}

/** Manual Trigger → AI Agent (prompt `prompt`) with the OpenAI Chat Model and `tools`. */
function agentWorkflow(id, name, prompt, tools) {
	const nodes = [
		startNode(`${id}-1`),
		{
			id: `${id}-2`,
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [220, 0],
			parameters: { promptType: 'define', text: prompt, options: {} },
		},
		{
			id: `${id}-3`,
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.3,
			position: [120, 220],
			credentials: { openAiApi: OPENAI_CREDENTIAL },
			parameters: {
				model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
				responsesApiEnabled: false,
				options: {},
			},
		},
		...tools.map((tool, i) => ({
			id: `${id}-t${i}`,
			type: 'n8n-nodes-document-ocr.documentOcrTool',
			typeVersion: tool.typeVersion ?? 1,
			position: [320 + 200 * i, 220],
			credentials: OCR_CREDENTIAL,
			...tool,
			parameters: { descriptionType: 'auto', ...tool.parameters },
		})),
	];
	const connections = {
		Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'OpenAI Chat Model': {
			ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
		},
	};
	for (const tool of tools)
		connections[tool.name] = { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] };
	return { id, name, active: false, settings: { executionOrder: 'v1' }, nodes, connections };
}

const getTool = {
	name: GET_NODE,
	parameters: {
		resource: 'task',
		operation: 'get',
		// As the editor writes it for a resource locator: By ID, the ID from the model.
		taskId: { __rl: true, mode: 'id', value: fromAi('Task_ID', taskIdField.description) },
	},
};
const listTool = {
	name: LIST_NODE,
	parameters: {
		resource: 'task',
		operation: 'getMany',
		returnAll: false,
		limit: fromAi('Limit', LIMIT_HELP, 'number'),
		filters: {},
		options: {},
	},
};
const submitBase64Tool = {
	name: SUBMIT_NODE,
	parameters: {
		resource: 'task',
		operation: 'submit',
		documentSource: 'base64',
		base64Data: fromAi('Document', fieldDescription('base64Data')),
		fileName: fromAi('File_Name', fieldDescription('fileName')),
		options: {},
	},
};
/**
 * Recognize as an editor user would set it up for an agent today (node version 2: Simplify on):
 * Input Type URL, the URL filled in by the model.
 */
const recognizeUrlTool = {
	name: RECOGNIZE_NODE,
	typeVersion: 2,
	parameters: {
		resource: 'document',
		operation: 'recognize',
		documentSource: 'url',
		documentUrl: fromAi('Document_URL', fieldDescription('documentUrl')),
		options: {},
	},
};
/** Count Pages with Input Type URL, the URL filled in by the model. */
const countPagesUrlTool = {
	name: COUNT_NODE,
	typeVersion: 2,
	parameters: {
		resource: 'document',
		operation: 'countPages',
		documentSource: 'url',
		documentUrl: fromAi('Document_URL', fieldDescription('documentUrl')),
		options: {},
	},
};
/** Submit as the editor adds it: Input Type left at Binary File. */
const submitBinaryTool = {
	name: SUBMIT_NODE,
	parameters: { resource: 'task', operation: 'submit', options: {} },
};

/**
 * Writes captured tool definitions into docs/agent-tool.md, between the markers
 * `<!-- captured:<marker>:start -->` and `<!-- captured:<marker>:end -->` — with UPDATE_DOCS=1
 * only, so that a test run leaves the tree as it found it; otherwise a difference is reported.
 */
function recordToolDefinitions(marker, tools) {
	if (!fs.existsSync(DOC)) return;
	const text = fs.readFileSync(DOC, 'utf8');
	const open = `<!-- captured:${marker}:start -->`;
	const start = text.indexOf(open);
	const end = text.indexOf(`<!-- captured:${marker}:end -->`);
	if (start < 0 || end < start) return;
	const block = `${open}\n\n\`\`\`json\n${JSON.stringify(tools, null, 2)}\n\`\`\`\n\n`;
	const next = text.slice(0, start) + block + text.slice(end);
	if (next === text) return;
	if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(DOC, next);
	else
		process.stdout.write(
			`docs/agent-tool.md is out of date (${marker}): run the e2e suite with UPDATE_DOCS=1\n`,
		);
}

let n8n;
let fake;
let taskId;
let files;
/** Requests the emulator received, as "METHOD path". */
const emulatorRequests = [];

/** Runs a workflow; returns the run, the chat requests and emulator requests it caused. */
async function runAgent(workflowId, behaviour) {
	fake.behaviour = behaviour;
	const chatMark = fake.requests.length;
	const emuMark = emulatorRequests.length;
	const run = await n8n.executeOverRest(workflowId);
	// What n8n sent to the model, kept with the instance's logs (KEEP_E2E_FOLDERS=1 keeps them).
	fs.writeFileSync(
		path.join(n8n.userFolder, `fake-openai-${workflowId}.json`),
		JSON.stringify(fake.requests.slice(chatMark), null, 2),
	);
	const chats = fake.chatRequests(chatMark);
	const last = chats[chats.length - 1];
	return {
		run,
		chats,
		sent: emulatorRequests.slice(emuMark),
		offered: chats[0]?.body.tools ?? [],
		toolMessage: last?.body.messages.find((m) => m.role === 'tool'),
		call: last?.body.messages.find((m) => m.role === 'assistant' && m.tool_calls)?.tool_calls[0],
		answer: nodeOutput(run, 'AI Agent')?.[0]?.json.output,
	};
}

/** Records each request the emulator receives (removed at the suite's end). */
const countRequest = (req) => emulatorRequests.push(`${req.method} ${req.url}`);

/**
 * Before the shared instance's one import: the fake model and the file server, the task the agent
 * will read (in the emulator), the OpenAI credential queued, its workflows.
 */
async function prepare(instance) {
	n8n = instance;
	fake = await startFakeOpenAi();
	// The scan the agent is given only as a link: served by a plain web server, not the service.
	files = await startFileServer();
	files.put('/shared/report.pdf', documents.makePdf(['Summary', 'Figures', 'Annex']), {
		'content-type': 'application/pdf',
	});
	files.put('/shared/boarding-pass.pdf', documents.makePdf([URL_TEXT]), {
		'content-type': 'application/pdf',
	});
	for (const server of n8n.emu.servers) server.on('request', countRequest);

	// The task the agent will read: submitted straight to the emulator, finished before the run.
	const submitted = await request(`${n8n.emu.url}/api/ocr`, {
		method: 'POST',
		headers: { authorization: `Bearer ${KEYS.full}`, 'content-type': 'application/json' },
		body: JSON.stringify({
			imageBase64: documents.makePdf([DOCUMENT_TEXT]).toString('base64'),
			filename: 'delivery-note.pdf',
		}),
	});
	({ taskId } = await submitted.body.json());
	expect(typeof taskId).toBe('string');
	await n8n.emu.waitForTask(taskId, { timeoutMs: 120_000 });
	expect(n8n.emu.taskView(taskId)).toMatchObject({ status: 'done', resultText: DOCUMENT_TEXT });

	// In the shared instance's one import:credentials (its key is a fake, not scanned for, as before).
	await n8n.importOtherCredential({
		...OPENAI_CREDENTIAL,
		type: 'openAiApi',
		data: { apiKey: 'sk-fake-e2e', url: `${fake.url}/v1`, header: false },
	});
	const scan = `data:application/pdf;base64,${documents.makePdf([SCAN_TEXT]).toString('base64')}`;
	const workflows = [
		agentWorkflow(
			'ocrE2eAgentGet01',
			'e2e: AI Agent reads an OCR task',
			`What does the scanned document of OCR task ${taskId} say?`,
			[getTool, listTool],
		),
		agentWorkflow(
			'ocrE2eAgentMiss1',
			'e2e: AI Agent asks for a task that does not exist',
			`What does the scanned document of OCR task ${MISSING_TASK} say?`,
			[getTool, listTool],
		),
		agentWorkflow(
			'ocrE2eAgentSub01',
			'e2e: AI Agent submits a document it was given',
			`Read this scan (file permit.pdf) and tell me what it says: ${scan}`,
			[submitBase64Tool],
		),
		agentWorkflow(
			'ocrE2eAgentUrl01',
			'e2e: AI Agent reads a scan it was given as a URL',
			`What does the scan at ${files.url('/shared/boarding-pass.pdf')} say?`,
			[recognizeUrlTool],
		),
		agentWorkflow(
			'ocrE2eAgentCnt01',
			'e2e: AI Agent counts the pages of a report before reading it',
			`How many pages does the report at ${files.url('/shared/report.pdf')} have?`,
			[countPagesUrlTool],
		),
		agentWorkflow(
			'ocrE2eAgentBin01',
			'e2e: AI Agent with Submit left at Binary File',
			'Read the scan I attached.',
			[submitBinaryTool],
		),
	];
	return { workflows };
}

function describeTests() {
	afterAll(async () => {
		for (const server of n8n?.emu.servers ?? []) server.off('request', countRequest);
		await fake?.close();
		await files?.close();
	});

	/** Like a model: the task ID from the user's message. */
	const taskIdArgs = (tool, userText) => {
		const id = /\btask ([A-Za-z0-9_-]+)/.exec(userText)?.[1];
		const args = {};
		for (const [key, schema] of Object.entries(tool.parameters.properties ?? {}))
			args[key] = schema.type === 'number' ? 5 : id;
		return args;
	};
	/** Like a model: quotes the recognised text of the tool result, or reports what went wrong. */
	const quoteResult = (content) => {
		const result = JSON.parse(content);
		const record = [].concat(result).find((r) => r && typeof r.resultText === 'string');
		return record
			? `The scanned document says: "${record.resultText}"`
			: `The tool could not read it: ${content}`;
	};

	test('an AI Agent calls Task → Get through the Document OCR tool and answers with the text', async () => {
		const { run, chats, sent, offered, toolMessage, call, answer } = await runAgent(
			'ocrE2eAgentGet01',
			{ tool: toolName(GET_NODE), args: taskIdArgs, answer: quoteResult },
		);

		expect(run.data.resultData.error).toBeUndefined();
		expect(chats).toHaveLength(2);

		// 1. What the model was offered: both tools, named and described by the node's own texts.
		const byName = Object.fromEntries(offered.map((t) => [t.function.name, t.function]));
		expect(Object.keys(byName).sort()).toEqual([toolName(GET_NODE), toolName(LIST_NODE)].sort());
		const get = byName[toolName(GET_NODE)];
		expect(get.description).toBe(`${action('task', 'get')} in Document OCR`);
		expect(get.description).toBe('Get task in Document OCR');
		expect(get.parameters).toMatchObject({
			type: 'object',
			properties: { Task_ID: { type: 'string', description: taskIdField.description } },
			required: ['Task_ID'],
		});
		expect(get.parameters.properties.Task_ID.description).toMatch(
			/'taskId' field in the output of/,
		);
		const list = byName[toolName(LIST_NODE)];
		expect(list.description).toBe('Get many tasks in Document OCR');
		expect(list.parameters.properties.Limit).toEqual({ type: 'number', description: LIMIT_HELP });
		recordToolDefinitions('get-tools', offered);

		// 2. The tool ran against the service: GET /api/tasks/<id>, and only that.
		expect(sent).toEqual([`GET /api/tasks/${taskId}`]);

		// 3. The tool result went back to the model, carrying the recognised text.
		expect(call.function.name).toBe(toolName(GET_NODE));
		// n8n replays the call with its ID added to the arguments.
		expect(JSON.parse(call.function.arguments)).toMatchObject({ Task_ID: taskId });
		expect(toolMessage.tool_call_id).toBe(call.id);
		expect(JSON.parse(toolMessage.content)).toEqual([
			expect.objectContaining({ taskId, status: 'done', resultText: DOCUMENT_TEXT }),
		]);

		// 4. The agent's answer quotes it.
		expect(answer).toBe(`The scanned document says: "${DOCUMENT_TEXT}"`);

		// 5. n8n's own record of the tool run.
		const toolRuns = run.data.resultData.runData[GET_NODE];
		expect(toolRuns).toHaveLength(1);
		expect(JSON.stringify(toolRuns[0].data)).toContain(DOCUMENT_TEXT);
		expect(run.data.resultData.runData[LIST_NODE]).toBeUndefined();
	});

	test('a task ID that does not exist: the model gets the error message and the run goes on', async () => {
		const { run, sent, toolMessage, answer } = await runAgent('ocrE2eAgentMiss1', {
			tool: toolName(GET_NODE),
			args: taskIdArgs,
			answer: quoteResult,
		});

		expect(run.data.resultData.error).toBeUndefined();
		expect(sent).toEqual([`GET /api/tasks/${MISSING_TASK}`]);
		expect(JSON.parse(toolMessage.content)).toEqual([
			{ error: `Task "${MISSING_TASK}" was not found` },
		]);
		expect(answer).toContain('was not found');
		// The tool node's run carries the whole error; n8n 2.41 passes only its message to the model,
		// not its description (the hint on what to do), so messages must stand on their own.
		const [toolRun] = run.data.resultData.runData[GET_NODE];
		expect(toolRun.error.description).toMatch(/^Check the ID/);
		expect(toolMessage.content).not.toContain('Check the ID');
	});

	test('Task → Submit with Base64 from the model: the document is recognised, billed, and its text returned', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const { run, sent, offered, toolMessage, answer } = await runAgent('ocrE2eAgentSub01', {
			tool: toolName(SUBMIT_NODE),
			args: (tool, userText) => ({
				Document: /data:\S+/.exec(userText)[0],
				File_Name: /\(file ([^)]+)\)/.exec(userText)[1],
			}),
			answer: quoteResult,
		});

		expect(run.data.resultData.error).toBeUndefined();
		const [submit] = offered;
		expect(submit.function).toMatchObject({
			name: toolName(SUBMIT_NODE),
			description: 'Submit document in Document OCR',
			parameters: {
				properties: {
					Document: { type: 'string', description: fieldDescription('base64Data') },
					File_Name: { type: 'string', description: fieldDescription('fileName') },
				},
				required: ['Document', 'File_Name'],
			},
		});
		recordToolDefinitions('submit-tool', offered);

		const [record] = JSON.parse(toolMessage.content);
		expect(record).toMatchObject({ status: 'done', resultText: SCAN_TEXT });
		// With Wait for Completion, first the free check that the key can read tasks, then the
		// submission, then status reads of that task only.
		expect(sent.slice(0, 2)).toEqual(['GET /api/tasks?page=1&pageSize=1', 'POST /api/ocr']);
		expect(new Set(sent.slice(2))).toEqual(new Set([`GET /api/tasks/${record.taskId}`]));
		const charged = n8n.emu
			.ledger('acme')
			.slice(mark)
			.reduce((sum, e) => sum - e.delta, 0);
		expect(charged).toBe(1);
		expect(answer).toBe(`The scanned document says: "${SCAN_TEXT}"`);
	});

	test('Task → Submit left at Binary File: the model gets the error, nothing is sent or charged', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const { run, sent, offered, toolMessage } = await runAgent('ocrE2eAgentBin01', {
			tool: toolName(SUBMIT_NODE),
			args: () => ({}),
			answer: (content) => `The tool could not read it: ${content}`,
		});

		expect(run.data.resultData.error).toBeUndefined();
		// No $fromAI() in the node: the model has nothing to fill in.
		expect(offered[0].function.parameters.properties).toEqual({});
		// A tool gets only the model's arguments as its input item: no binary data.
		expect(JSON.parse(toolMessage.content)).toEqual([
			{ error: 'Item 0 has no binary field "data"' },
		]);
		const [toolRun] = run.data.resultData.runData[SUBMIT_NODE];
		expect(toolRun.error.description).toMatch(/choose "URL" or "Base64 or Data URI"/);
		expect(sent).toEqual([]);
		expect(n8n.emu.ledger('acme').length).toBe(mark);
	});

	test('Document → Recognize with a URL from the model: the scan is fetched, recognized, and the text alone returned', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const fetched = files.stats.requests;
		const { run, sent, offered, toolMessage, call, answer } = await runAgent('ocrE2eAgentUrl01', {
			tool: toolName(RECOGNIZE_NODE),
			args: (tool, userText) => ({ Document_URL: /https?:\/\/\S+?(?=\s|\?$|$)/.exec(userText)[0] }),
			answer: (content) => {
				const [result] = JSON.parse(content);
				return typeof result?.text === 'string'
					? `The scan says: "${result.text}"`
					: `The tool could not read it: ${content}`;
			},
		});

		expect(run.data.resultData.error).toBeUndefined();
		// What the model was offered: one URL to fill in, described by the node's own text.
		const [recognize] = offered;
		expect(recognize.function).toMatchObject({
			name: toolName(RECOGNIZE_NODE),
			description: 'Recognize document text in Document OCR',
			parameters: {
				properties: {
					Document_URL: { type: 'string', description: fieldDescription('documentUrl') },
				},
				required: ['Document_URL'],
			},
		});
		recordToolDefinitions('url-tool', offered);
		expect(JSON.parse(call.function.arguments)).toMatchObject({
			Document_URL: files.url('/shared/boarding-pass.pdf'),
		});

		// n8n fetched the file once; the service got one upload; one page was billed.
		expect(files.stats.requests - fetched).toBe(1);
		expect(sent).toEqual(['POST /v1/ocr']);
		const charged = n8n.emu
			.ledger('acme')
			.slice(mark)
			.reduce((sum, e) => sum - e.delta, 0);
		expect(charged).toBe(1);

		// A lean result for the model: the text and the file name, no block list.
		expect(JSON.parse(toolMessage.content)).toEqual([
			{ text: URL_TEXT, pagesCounted: 1, fileName: 'boarding-pass.pdf' },
		]);
		expect(answer).toBe(`The scan says: "${URL_TEXT}"`);
	});

	test('Document → Count Pages with a URL from the model: the pages, with nothing sent or charged', async () => {
		const mark = n8n.emu.ledger('acme').length;
		const { run, sent, toolMessage, answer } = await runAgent('ocrE2eAgentCnt01', {
			tool: toolName(COUNT_NODE),
			args: (tool, userText) => ({ Document_URL: /https?:\/\/\S+?(?=\s|\?$|$)/.exec(userText)[0] }),
			answer: (content) => `It has ${JSON.parse(content)[0]?.pages} pages.`,
		});
		expect(run.data.resultData.error).toBeUndefined();
		expect(JSON.parse(toolMessage.content)).toEqual([
			{
				fileName: 'report.pdf',
				kind: 'pdf',
				mimeType: 'application/pdf',
				size: expect.any(Number),
				pages: 3,
				partsNeeded: { taskApi: 1, v1Api: 1 },
			},
		]);
		expect(answer).toBe('It has 3 pages.');
		expect(sent).toEqual([]);
		expect(n8n.emu.ledger('acme').length).toBe(mark);
	});
}

module.exports = { name: 'agent', prepare, describeTests };
