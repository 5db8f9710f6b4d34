// Rows of the three tables, kept in id order, with their identity sequences.
import { TABLES, type TableDef } from './schema';
import { subMillisecondMicros } from './time';
import { TABLE_NAMES, type Row, type TableName } from './types';

export class TableStore {
	/** Sorted by id: reads in default order need no sort. */
	private list: Row[] = [];
	private readonly byId = new Map<number, Row>();
	/** Last value handed out by the identity sequence (Postgres does not roll it back). */
	private sequence = 0;
	/** Whether created_at never decreases along id order; undefined = recompute. */
	private createdFollowsIdCache: boolean | undefined = true;

	constructor(readonly def: TableDef) {}

	get rows(): readonly Row[] {
		return this.list;
	}

	get size(): number {
		return this.list.length;
	}

	get(id: number): Row | undefined {
		return this.byId.get(id);
	}

	nextId(): number {
		return ++this.sequence;
	}

	/** Like `setval` after seeding: direct inserts with explicit ids move the sequence past them. */
	raiseSequence(id: number): void {
		if (id > this.sequence) this.sequence = id;
	}

	add(row: Row): void {
		const id = row.data.id as number;
		const last = this.list[this.list.length - 1];
		if (!last || (last.data.id as number) < id) {
			if (last && this.createdFollowsIdCache === true && row.createdUs < last.createdUs) {
				this.createdFollowsIdCache = false;
			}
			this.list.push(row);
		} else {
			// An explicit id below the current maximum: keep the list sorted.
			this.list.splice(this.insertionIndex(id), 0, row);
			this.createdFollowsIdCache = undefined;
		}
		this.byId.set(id, row);
	}

	remove(rows: ReadonlySet<Row>): void {
		if (rows.size === 0) return;
		this.list = this.list.filter((row) => !rows.has(row));
		for (const row of rows) this.byId.delete(row.data.id as number);
		// Removing rows cannot break the order, but it may restore it.
		if (this.createdFollowsIdCache === false) this.createdFollowsIdCache = undefined;
	}

	/** To call after a row's data changed, with its id and created_at from before the change. */
	changed(row: Row, oldId: number, oldCreatedUs: number): void {
		row.json = undefined;
		const id = row.data.id as number;
		if (id !== oldId) {
			this.byId.delete(oldId);
			this.list.splice(this.list.indexOf(row), 1);
			this.list.splice(this.insertionIndex(id), 0, row);
			this.byId.set(id, row);
		}
		if (id !== oldId || row.createdUs !== oldCreatedUs) this.createdFollowsIdCache = undefined;
	}

	createdFollowsId(): boolean {
		if (this.createdFollowsIdCache === undefined) {
			this.createdFollowsIdCache = this.list.every((row, i) => i === 0 || this.list[i - 1].createdUs <= row.createdUs);
		}
		return this.createdFollowsIdCache;
	}

	clear(): void {
		this.list = [];
		this.byId.clear();
		this.sequence = 0;
		this.createdFollowsIdCache = true;
	}

	private insertionIndex(id: number): number {
		let lo = 0;
		let hi = this.list.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if ((this.list[mid].data.id as number) < id) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}
}

export class Store {
	readonly tables: Readonly<Record<TableName, TableStore>>;
	private lastMs = Number.NaN;
	private lastUs = 0;

	constructor() {
		const tables = {} as Record<TableName, TableStore>;
		for (const name of TABLE_NAMES) tables[name] = new TableStore(TABLES[name]);
		this.tables = tables;
	}

	/**
	 * A statement's `now()`: the clock millisecond plus a deterministic sub-millisecond part,
	 * strictly increasing within one millisecond so separate statements stay ordered.
	 */
	statementTime(nowMs: number): { ms: number; us: number } {
		const us = nowMs === this.lastMs ? this.lastUs + 1 : nowMs * 1000 + subMillisecondMicros(nowMs);
		this.lastMs = nowMs;
		this.lastUs = us;
		return { ms: nowMs, us };
	}

	clear(): void {
		for (const name of TABLE_NAMES) this.tables[name].clear();
		this.lastMs = Number.NaN;
	}
}
