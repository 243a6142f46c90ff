'use strict';
/**
 * The admin API under /__emulator (no auth, never on the /v1 listener): state, faults, webhooks,
 * balances, keys, reset, stats, queue pause/resume, redelivery. Mixed into the Emulator.
 */
const { readBody } = require('../util.js');
const { MB10, HandledError } = require('../common.js');

class AdminApi {
	async handleAdmin(ctx) {
		const body = await readBody(ctx.req, MB10);
		const json = () => {
			if (!body.buffer.length) return {};
			try {
				return JSON.parse(body.buffer.toString('utf8'));
			} catch (e) {
				this.sendJson(ctx, 400, { error: 'bad_request', message: `invalid JSON: ${e.message}` });
				throw new HandledError('bad_request');
			}
		};
		const bad = (e) => {
			this.sendJson(ctx, 400, {
				error: 'bad_request',
				message: String(e && e.message ? e.message : e),
			});
			throw new HandledError('bad_request');
		};
		const sub = ctx.segs.slice(1).join('/');
		switch (`${ctx.method} ${sub}`) {
			case 'GET state':
				return this.sendJson(ctx, 200, this.state());
			case 'GET faults':
				return this.sendJson(ctx, 200, { faults: this.faults.list() });
			case 'POST faults': {
				const j = json();
				const rules = Array.isArray(j) ? j : [j];
				try {
					for (const r of rules) this.fault(r);
				} catch (e) {
					bad(e);
				}
				return this.sendJson(ctx, 200, { ok: true, faults: this.faults.list() });
			}
			case 'DELETE faults':
				this.clearFaults();
				return this.sendJson(ctx, 200, { ok: true });
			case 'GET webhooks':
				return this.sendJson(ctx, 200, { webhooks: this.webhooks.endpoints });
			case 'POST webhooks': {
				let ep;
				try {
					ep = this.addWebhook(json());
				} catch (e) {
					bad(e);
				}
				return this.sendJson(ctx, 200, { ok: true, webhook: ep });
			}
			case 'DELETE webhooks':
				this.clearWebhooks();
				return this.sendJson(ctx, 200, { ok: true });
			case 'POST balance': {
				const j = json();
				try {
					this.setBalance(j.account, j.pages);
				} catch (e) {
					bad(e);
				}
				return this.sendJson(ctx, 200, {
					ok: true,
					account: j.account,
					balance: this.balance(j.account),
				});
			}
			case 'POST reset':
				this.reset();
				return this.sendJson(ctx, 200, { ok: true });
			case 'POST stats/reset':
				this.resetStats();
				return this.sendJson(ctx, 200, { ok: true });
			case 'POST fail-next': {
				const j = json();
				return this.sendJson(ctx, 200, {
					ok: true,
					failNext: this.failNextTasks(j.count ?? j.n ?? 1),
				});
			}
			case 'POST keys': {
				const j = json();
				if (!j.key || !j.user) bad('key and user are required');
				this.addKey(j.key, { user: j.user, scopes: j.scopes || [] });
				return this.sendJson(ctx, 200, { ok: true });
			}
			case 'POST redeliver': {
				const j = json();
				let r;
				try {
					r = await this.redeliver(Number(j.index));
				} catch (e) {
					bad(e);
				}
				return this.sendJson(ctx, 200, { ok: true, delivery: r });
			}
			case 'POST queue/pause':
				this.pauseQueue();
				return this.sendJson(ctx, 200, { ok: true });
			case 'POST queue/resume':
				this.resumeQueue();
				return this.sendJson(ctx, 200, { ok: true });
			default:
				return this.sendJson(ctx, 404, {
					error: 'not_found',
					message: `No admin route ${ctx.method} /${ctx.segs.join('/')}`,
				});
		}
	}
}

module.exports = { handlers: AdminApi };
