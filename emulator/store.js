'use strict';
/**
 * Accounts, users, API keys, page balances and the page ledger.
 *
 * Defaults:
 *   accounts: acme { balance 1000, owner alice, members [carol] }, broke { balance 0, owner bob }
 *   users:    alice (owner, acme), carol (member, acme), bob (owner, broke), mallory (banned, no account)
 *   keys:     DEFAULT_KEYS below ('submit' is always added; 'ocr:<scope>' counts as '<scope>')
 * Ledger entry: { seq, at, account, user, delta, reason: 'submit'|'refund', taskId, endpoint }
 * setBalance() does not write ledger entries.
 */
const ALL_SCOPES = ['submit', 'read', 'export'];

const DEFAULT_KEYS = Object.freeze({
	ocr_test_full: Object.freeze({
		user: 'alice',
		scopes: Object.freeze(['submit', 'read', 'export']),
	}),
	ocr_test_submit_only: Object.freeze({ user: 'alice', scopes: Object.freeze(['submit']) }),
	ocr_test_read_alias: Object.freeze({
		user: 'alice',
		scopes: Object.freeze(['submit', 'ocr:read']),
	}),
	ocr_test_member: Object.freeze({
		user: 'carol',
		scopes: Object.freeze(['submit', 'read', 'export']),
	}),
	ocr_test_banned: Object.freeze({
		user: 'mallory',
		scopes: Object.freeze(['submit', 'read', 'export']),
	}),
	ocr_test_broke: Object.freeze({
		user: 'bob',
		scopes: Object.freeze(['submit', 'read', 'export']),
	}),
});

/** Friendly aliases of the default key strings. */
const KEYS = Object.freeze({
	full: 'ocr_test_full',
	submitOnly: 'ocr_test_submit_only',
	readAlias: 'ocr_test_read_alias',
	member: 'ocr_test_member',
	banned: 'ocr_test_banned',
	broke: 'ocr_test_broke',
});

const DEFAULT_ACCOUNTS = {
	acme: { balance: 1000, owner: 'alice', members: ['carol'] },
	broke: { balance: 0, owner: 'bob', members: [] },
};

const DEFAULT_USERS = {
	alice: { account: 'acme', role: 'owner', banned: false },
	carol: { account: 'acme', role: 'member', banned: false },
	bob: { account: 'broke', role: 'owner', banned: false },
	mallory: { account: null, role: 'owner', banned: true },
};

function normaliseScope(s) {
	return String(s).trim().replace(/^ocr:/i, '').toLowerCase();
}

class Store {
	constructor({ accounts, users, keys } = {}) {
		this.initial = {
			accounts: { ...DEFAULT_ACCOUNTS, ...(accounts || {}) },
			users: { ...DEFAULT_USERS, ...(users || {}) },
			keys: { ...DEFAULT_KEYS, ...(keys || {}) },
		};
		this.reset();
	}

	reset() {
		this.accounts = new Map();
		this.users = new Map();
		this.keys = new Map();
		this.ledgerEntries = [];
		this.seq = 0;
		for (const [name, u] of Object.entries(this.initial.users)) this.addUser(name, u);
		for (const [name, a] of Object.entries(this.initial.accounts)) this.addAccount(name, a);
		for (const [key, k] of Object.entries(this.initial.keys)) this.addKey(key, k);
	}

	addAccount(name, { balance = 0, owner = null, members = [] } = {}) {
		this.accounts.set(name, { name, balance: Number(balance) || 0, owner, members: [...members] });
		if (owner)
			this.addUser(owner, { ...(this.users.get(owner) || {}), account: name, role: 'owner' });
		for (const m of members)
			this.addUser(m, { ...(this.users.get(m) || {}), account: name, role: 'member' });
		return this.accounts.get(name);
	}

	addUser(name, { account = null, role = 'member', banned = false } = {}) {
		this.users.set(name, { name, account, role, banned: Boolean(banned) });
		return this.users.get(name);
	}

	banUser(name, banned = true) {
		const u = this.users.get(name);
		if (!u) throw new Error(`unknown user ${name}`);
		u.banned = Boolean(banned);
	}

	addKey(key, { user, scopes = [] } = {}) {
		const set = new Set(['submit', ...scopes.map(normaliseScope)]);
		this.keys.set(String(key), {
			key: String(key),
			user,
			scopes: [...set],
			rawScopes: [...scopes],
		});
		return this.keys.get(String(key));
	}

	removeKey(key) {
		return this.keys.delete(String(key));
	}

	keysObject() {
		const o = {};
		for (const [k, v] of this.keys)
			o[k] = {
				user: v.user,
				scopes: v.rawScopes.includes('submit') ? [...v.rawScopes] : ['submit', ...v.rawScopes],
			};
		return o;
	}

	/**
	 * Auth in spec order: missing key -> invalid key -> banned user -> missing scope.
	 * Returns { key, user, account } or { error: { status, code, message } }.
	 */
	authenticate(authorization, scope) {
		const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization || '');
		if (!m)
			return {
				error: {
					status: 401,
					code: 'missing_api_key',
					message: 'Missing API key: send the header "Authorization: Bearer <API_KEY>"',
				},
			};
		const key = this.keys.get(m[1]);
		if (!key)
			return {
				error: { status: 401, code: 'invalid_api_key', message: 'The API key is not valid' },
			};
		const user = this.users.get(key.user);
		if (!user)
			return {
				error: { status: 401, code: 'invalid_api_key', message: 'The API key is not valid' },
			};
		if (user.banned)
			return {
				error: { status: 403, code: 'user_banned', message: `User ${user.name} is banned` },
			};
		if (scope && !key.scopes.includes(scope))
			return {
				error: {
					status: 403,
					code: 'insufficient_scope',
					message: `This API key lacks the required scope "${scope}"`,
				},
			};
		return { key, user, account: user.account ? this.accounts.get(user.account) || null : null };
	}

	balance(account) {
		const a = this.accounts.get(account);
		return a ? a.balance : undefined;
	}

	setBalance(account, pages) {
		const a = this.accounts.get(account);
		if (!a) throw new Error(`unknown account ${account}`);
		a.balance = Number(pages) || 0;
		return a.balance;
	}

	balances() {
		const o = {};
		for (const [n, a] of this.accounts) o[n] = a.balance;
		return o;
	}

	record(account, user, delta, reason, taskId, endpoint) {
		const a = this.accounts.get(account);
		a.balance += delta;
		const e = {
			seq: ++this.seq,
			at: new Date().toISOString(),
			account,
			user,
			delta,
			reason,
			taskId,
			endpoint,
			balanceAfter: a.balance,
		};
		this.ledgerEntries.push(e);
		return e;
	}

	charge(account, user, pages, taskId, endpoint) {
		return this.record(account, user, -pages, 'submit', taskId, endpoint);
	}

	refund(account, user, pages, taskId, endpoint) {
		return this.record(account, user, +pages, 'refund', taskId, endpoint);
	}

	ledger(account) {
		return this.ledgerEntries
			.filter((e) => !account || e.account === account)
			.map((e) => ({ ...e }));
	}

	/** number of 'submit' entries minus number of 'refund' entries */
	charges(account) {
		let n = 0;
		for (const e of this.ledgerEntries) {
			if (account && e.account !== account) continue;
			if (e.reason === 'submit') n++;
			else if (e.reason === 'refund') n--;
		}
		return n;
	}

	/** net pages charged (submits minus refunds) */
	pagesCharged(account) {
		let n = 0;
		for (const e of this.ledgerEntries) if (!account || e.account === account) n -= e.delta;
		return n;
	}
}

module.exports = {
	Store,
	DEFAULT_KEYS,
	KEYS,
	DEFAULT_ACCOUNTS,
	DEFAULT_USERS,
	ALL_SCOPES,
	normaliseScope,
};
