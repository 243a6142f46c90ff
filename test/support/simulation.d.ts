import type { Poller, PollerSettings, PollOutcome } from '../../nodes/DocumentOcr/waiting/poller';

export declare class Clock {
	t: number;
	now: () => number;
	sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
	at(time: number, fn: () => void): { time: number; off: boolean };
	run(done: () => boolean): Promise<void>;
}

export type Order = 'fifo' | 'random' | 'smallest';

export interface SimulationResult {
	pollsPerTask: number;
	lateMs: number;
	states: Array<PollOutcome['state']>;
	endedAt: number[];
	doneAt: Array<number | undefined>;
}

export interface Simulation {
	Clock: typeof Clock;
	poller(clock: Clock, settings?: Partial<PollerSettings>): Poller;
	simulate(options: {
		pages: number[];
		workers?: number;
		msPerPage?: number;
		order?: Order;
		rttMs?: number;
		seed?: number;
		requestSlots?: number;
		deadlineMs?: number;
	}): Promise<SimulationResult>;
	mixedPages(n: number, max?: number, seed?: number): number[];
	rng(seed: number): () => number;
}

export declare function simulation(pollerModule: {
	Poller: typeof Poller;
	DEFAULT_POLLER: Partial<PollerSettings>;
}): Simulation;
export declare function mixedPages(n: number, max?: number, seed?: number): number[];
export declare function rng(seed: number): () => number;
