'use strict';
/**
 * The services the queue-mode suites start for n8n, on free loopback ports with folders of their
 * own, from Debian packages (installed with apt-get when missing, as .ci/run installs chromium):
 * Redis (`redis-server`) and PostgreSQL (`postgresql`).
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const rt = require('../../scripts/n8n-runtime');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------ Redis

/** Debian's redis-server, installed with apt-get when missing (as .ci/run installs chromium). */
function ensureRedisServer() {
	const found = () => spawnSync('sh', ['-c', 'command -v redis-server']).status === 0;
	if (found()) return;
	process.stdout.write('» installing redis-server (apt-get)\n');
	spawnSync(
		'sh',
		[
			'-c',
			'command -v redis-server || (apt-get update -qq && apt-get install -y -qq redis-server)',
		],
		{ stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } },
	);
	if (!found())
		throw new Error(
			'the queue-mode suite needs Redis: `redis-server` is not installed and ' +
				'`apt-get install -y redis-server` did not install it (root and a Debian package ' +
				'mirror are required). Install Debian\'s "redis-server" package and run again.',
		);
}

/** One command to Redis over RESP; resolves with the raw reply. */
function redisCommand(port, ...args) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		const chunks = [];
		const done = (error, value) => {
			socket.destroy();
			if (error) reject(error);
			else resolve(value);
		};
		socket.setTimeout(2000, () => done(new Error('redis: timeout')));
		socket.on('error', done);
		socket.on('connect', () =>
			socket.write(
				`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`,
			),
		);
		socket.on('data', (chunk) => {
			chunks.push(chunk);
			const reply = Buffer.concat(chunks).toString('utf8');
			const bulk = /^\$(\d+)\r\n/.exec(reply);
			if (!bulk && reply.endsWith('\r\n')) done(null, reply.trim());
			if (bulk && Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2)
				done(null, reply.slice(bulk[0].length, bulk[0].length + Number(bulk[1])));
		});
	});
}

async function startRedis() {
	ensureRedisServer();
	const started = Date.now();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-queue-redis-'));
	const port = await rt.freePort();
	const logFile = path.join(dir, 'redis.log');
	const out = fs.openSync(logFile, 'w');
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--protected-mode',
			'yes',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
		],
		{ stdio: ['ignore', out, out], detached: true },
	);
	fs.closeSync(out);
	let exited = null;
	child.on('exit', (code, signal) => (exited = { code, signal }));
	while (Date.now() - started < 60_000) {
		if (exited) throw new Error(`redis-server exited (${JSON.stringify(exited)}); see ${logFile}`);
		if ((await redisCommand(port, 'PING').catch(() => '')) === '+PONG')
			return { child, port, dir, logFile, seconds: (Date.now() - started) / 1000 };
		await sleep(100);
	}
	await rt.stopServer(child);
	throw new Error(`redis-server did not answer PING in 60 s; see ${logFile}`);
}

async function stopRedis(redis) {
	if (!redis) return;
	await rt.stopServer(redis.child);
	if (!process.env.KEEP_E2E_FOLDERS) fs.rmSync(redis.dir, { recursive: true, force: true });
}

// ------------------------------------------------------------------------------------ helpers

/**
 * A free port below the kernel's ephemeral range: the webhook process's port is chosen before
 * main starts (every process's WEBHOOK_URL names it) but bound last, and a port picked in between
 * by binding port 0 (task brokers, the worker's health port) can then never be the same one.
 */
async function portBelowEphemeralRange() {
	let low = 32768;
	try {
		low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
	} catch {
		// not Linux: the default range
	}
	const canBind = (port) =>
		new Promise((resolve) => {
			const server = net.createServer();
			server.once('error', () => resolve(false));
			server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
		});
	for (let attempt = 0; low > 11_000 && attempt < 50; attempt++) {
		const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
		if (await canBind(port)) return port;
	}
	return rt.freePort();
}

// ------------------------------------------------------------------------------------ PostgreSQL

/** The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/<major>/bin). */
function postgresBin() {
	const root = '/usr/lib/postgresql';
	if (!fs.existsSync(root)) return undefined;
	const majors = fs
		.readdirSync(root)
		.filter((d) => fs.existsSync(path.join(root, d, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return majors.length ? path.join(root, majors[0], 'bin') : undefined;
}

function ensurePostgres() {
	if (postgresBin()) return postgresBin();
	process.stdout.write('» installing postgresql (apt-get)\n');
	spawnSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq postgresql'], {
		stdio: 'ignore',
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
	});
	const bin = postgresBin();
	if (!bin)
		throw new Error(
			'the PostgreSQL queue-mode suite needs PostgreSQL: it is not installed and ' +
				'`apt-get install -y postgresql` did not install it (root and a Debian package mirror ' +
				'are required). Install Debian\'s "postgresql" package and run again.',
		);
	return bin;
}

/**
 * A throw-away PostgreSQL cluster on a free loopback port (trust authentication, loopback only),
 * its data in a temporary folder. As root it runs as the `postgres` user (initdb refuses root).
 * Resolves with { port, user, database, ... } once it accepts connections.
 */
async function startPostgres() {
	const bin = ensurePostgres();
	const started = Date.now();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-queue-pg-'));
	const data = path.join(dir, 'data');
	const root = process.getuid?.() === 0;
	const as = (command, args, options = {}) =>
		root
			? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], options)
			: spawnSync(command, args, options);
	if (root) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
	const init = as(
		path.join(bin, 'initdb'),
		['-D', data, '-A', 'trust', '-U', 'n8n', '-E', 'UTF8'],
		{
			encoding: 'utf8',
		},
	);
	if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
	const port = await rt.freePort();
	const logFile = path.join(dir, 'postgres.log');
	const out = fs.openSync(logFile, 'w');
	const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'];
	const child = root
		? spawn('runuser', ['-u', 'postgres', '--', path.join(bin, 'postgres'), ...args], {
				stdio: ['ignore', out, out],
				detached: true,
			})
		: spawn(path.join(bin, 'postgres'), args, { stdio: ['ignore', out, out], detached: true });
	fs.closeSync(out);
	let exited = null;
	child.on('exit', (code, signal) => (exited = { code, signal }));
	const ready = () =>
		spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).status === 0;
	while (Date.now() - started < 120_000) {
		if (exited) throw new Error(`postgres exited (${JSON.stringify(exited)}); see ${logFile}`);
		if (ready()) {
			const version = spawnSync(path.join(bin, 'postgres'), ['--version'], {
				encoding: 'utf8',
			}).stdout.trim();
			return {
				child,
				port,
				dir,
				logFile,
				user: 'n8n',
				database: 'postgres',
				version,
				seconds: (Date.now() - started) / 1000,
			};
		}
		await sleep(200);
	}
	await rt.stopServer(child);
	throw new Error(`postgres did not accept connections in 120 s; see ${logFile}`);
}

async function stopPostgres(pg) {
	if (!pg) return;
	await rt.stopServer(pg.child);
	if (!process.env.KEEP_E2E_FOLDERS) fs.rmSync(pg.dir, { recursive: true, force: true });
}

/** n8n's settings for a PostgreSQL database started by startPostgres. */
const postgresEnv = (pg) => ({
	DB_TYPE: 'postgresdb',
	DB_POSTGRESDB_HOST: '127.0.0.1',
	DB_POSTGRESDB_PORT: String(pg.port),
	DB_POSTGRESDB_DATABASE: pg.database,
	DB_POSTGRESDB_USER: pg.user,
	DB_POSTGRESDB_PASSWORD: '',
});

module.exports = {
	redisCommand,
	startRedis,
	stopRedis,
	portBelowEphemeralRange,
	startPostgres,
	stopPostgres,
	postgresEnv,
};
