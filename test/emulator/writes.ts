// INSERT, UPDATE and DELETE with Postgres' defaults, row-level security and constraints,
// all-or-nothing per statement.
import { pgrstError } from './reply';
import { type ColumnDef, type TableDef, parseJsonValue } from './schema';
import type { Store, TableStore } from './store';
import { formatTimestamp, formatTimestampText } from './time';
import type { CellValue, Plan, Row, TableName } from './types';

export interface Actor {
	userId: string;
	plan: Plan;
	/** API callers are held to RLS; direct inserts that arrange test data are not. */
	rls: boolean;
}

export interface WriteHooks {
	/** A job entered `finished` through a write (the lifecycle adds its download row). */
	jobFinished(job: Row, atMs: number): void;
	/** Jobs were added, changed or deleted: the lifecycle re-examines them. */
	jobsChanged(jobs: readonly Row[]): void;
	/** Owner of a download row: the owner of its job. */
	jobOwner(jobId: CellValue): string | undefined;
}

const OPTION_MODES = ['offline', 'relative', 'absolute'];

/**
 * A statement that passed every check. Not committing it is a rollback (sequence values it
 * took stay taken, as in Postgres); PostgREST rolls back e.g. when `.single()` sees ≠ 1 row.
 */
export interface PlannedWrite {
	/** The rows as they will be after the statement. */
	rows: readonly Row[];
	commit(): Row[];
}

export class Writer {
	constructor(
		private readonly store: Store,
		private readonly hooks: WriteHooks,
	) {}

	/**
	 * Inserts `objects`. `columns` are the columns the statement names (the payload keys or the
	 * `columns` parameter); a named column missing from an object is NULL unless `missingDefault`.
	 */
	insert(
		tableName: TableName,
		objects: ReadonlyArray<Record<string, unknown>>,
		columns: readonly string[],
		actor: Actor,
		nowMs: number,
		missingDefault = false,
	): PlannedWrite {
		const table = this.store.tables[tableName];
		const def = table.def;
		const named = new Set(columns);
		const time = this.store.statementTime(nowMs);
		// One now() per statement: format it once.
		const statementText = formatTimestamp(time.us);
		const added: Row[] = [];
		const newIds = new Set<number>();
		for (const object of objects) {
			const data: Record<string, CellValue> = {};
			let createdUs = time.us;
			for (const column of def.columns) {
				const given = named.has(column.name) && (!missingDefault || column.name in object);
				if (!given) {
					data[column.name] = this.defaultValue(table, column, actor, statementText);
					continue;
				}
				const value = parseJsonValue(column.type, object[column.name], nowMs);
				if (column.name === 'created_at' && typeof value === 'number') {
					createdUs = value;
					data.created_at = formatTimestamp(value);
				} else data[column.name] = value;
			}
			const row: Row = {
				data,
				ownerId: this.ownerOf(tableName, data, actor),
				createdUs,
				createdMs: createdUs === time.us ? time.ms : Math.floor(createdUs / 1000),
			};
			if (actor.rls) checkRowSecurity(tableName, row, actor);
			checkRowConstraints(def, row);
			const id = data.id as number;
			if (table.get(id) || newIds.has(id)) throw duplicateKey(def, id);
			newIds.add(id);
			added.push(row);
		}
		this.checkForeignKeys(tableName, added, actor);
		return {
			rows: added,
			commit: () => {
				for (const row of added) {
					table.add(row);
					if (!actor.rls) table.raiseSequence(row.data.id as number);
				}
				if (tableName === 'jobs') this.afterJobWrites(added, new Map(), actor, nowMs);
				return added;
			},
		};
	}

	/** Applies `patch` to `targets` (the visible rows the filters matched). */
	update(
		tableName: TableName,
		targets: readonly Row[],
		patch: Record<string, unknown>,
		actor: Actor,
		nowMs: number,
	): PlannedWrite {
		const table = this.store.tables[tableName];
		const def = table.def;
		const changes: Record<string, CellValue> = {};
		for (const [key, value] of Object.entries(patch)) {
			changes[key] = parseJsonValue((def.byName.get(key) as ColumnDef).type, value, nowMs);
		}
		if (Object.keys(changes).length === 0 || targets.length === 0) return { rows: [], commit: () => [] };
		const targetSet = new Set(targets);
		const planned = targets.map((row) => {
			const data = { ...row.data, ...changes };
			let createdUs = row.createdUs;
			if (typeof changes.created_at === 'number') {
				createdUs = changes.created_at;
				data.created_at = formatTimestamp(createdUs);
			}
			const next: Row = { data, ownerId: tableName === 'jobs' ? String(data.user_id ?? '') : row.ownerId, createdUs, createdMs: row.createdMs };
			if (actor.rls) checkRowSecurity(tableName, next, actor);
			checkRowConstraints(def, next);
			return { row, next };
		});
		const newIds = new Set<number>();
		for (const { next } of planned) {
			const id = next.data.id as number;
			const holder = table.get(id);
			if ((holder && !targetSet.has(holder)) || newIds.has(id)) throw duplicateKey(def, id);
			newIds.add(id);
		}
		this.checkForeignKeys(tableName, planned.map((p) => p.next), actor);
		if (tableName === 'jobs') {
			const movedIds = planned.filter((p) => p.row.data.id !== p.next.data.id).map((p) => p.row.data.id as number);
			this.checkNotReferenced(movedIds);
		}
		const commit = (): Row[] => {
			const previousStatus = new Map<Row, CellValue>();
			for (const { row, next } of planned) {
				const oldId = row.data.id as number;
				const oldCreatedUs = row.createdUs;
				previousStatus.set(row, row.data.status);
				if (changes.created_at !== undefined) row.createdMs = Math.floor(next.createdUs / 1000);
				row.data = next.data;
				row.ownerId = next.ownerId;
				row.createdUs = next.createdUs;
				table.changed(row, oldId, oldCreatedUs);
			}
			const updated = planned.map((p) => p.row);
			if (tableName === 'jobs') this.afterJobWrites(updated, previousStatus, actor, nowMs);
			return updated;
		};
		return { rows: planned.map((p) => p.next), commit };
	}

	delete(tableName: TableName, targets: readonly Row[]): PlannedWrite {
		if (tableName === 'jobs') this.checkNotReferenced(targets.map((r) => r.data.id as number));
		return {
			rows: targets,
			commit: () => {
				this.store.tables[tableName].remove(new Set(targets));
				if (tableName === 'jobs') this.hooks.jobsChanged(targets);
				return [...targets];
			},
		};
	}

	private defaultValue(table: TableStore, column: ColumnDef, actor: Actor, statementText: string): CellValue {
		switch (`${table.def.name}.${column.name}`) {
			case 'jobs.id':
			case 'options.id':
			case 'downloads.id':
				return table.nextId();
			case 'jobs.created_at':
			case 'options.created_at':
			case 'downloads.created_at':
				return statementText;
			case 'jobs.user_id':
				return actor.userId;
			case 'jobs.status':
				return 'queued';
			case 'jobs.files':
				return 0;
			case 'jobs.plan':
				return actor.plan;
			case 'options.relative_path':
				return '/';
			case 'options.replace_url':
				return '';
			default:
				return null;
		}
	}

	private ownerOf(tableName: TableName, data: Record<string, CellValue>, actor: Actor): string {
		if (tableName === 'jobs') return String(data.user_id ?? '');
		if (tableName === 'downloads') return this.hooks.jobOwner(data.job_id) ?? actor.userId;
		return actor.userId;
	}

	/** options.job_id → jobs.id; through the API only your own jobs count. */
	private checkForeignKeys(tableName: TableName, rows: readonly Row[], actor: Actor): void {
		if (tableName !== 'options') return;
		const jobs = this.store.tables.jobs;
		for (const row of rows) {
			const jobId = row.data.job_id;
			if (jobId === null) continue;
			const job = jobs.get(jobId as number);
			if (!job || (actor.rls && job.ownerId !== actor.userId)) {
				throw pgrstError(
					409,
					'23503',
					'insert or update on table "options" violates foreign key constraint "options_job_id_fkey"',
					`Key (job_id)=(${jobId}) is not present in table "jobs".`,
				);
			}
		}
	}

	/** ON DELETE/UPDATE NO ACTION: a job that options still point to cannot go away. */
	private checkNotReferenced(jobIds: readonly number[]): void {
		if (jobIds.length === 0) return;
		const ids = new Set(jobIds);
		const referencing = this.store.tables.options.rows.find((o) => ids.has(o.data.job_id as number));
		if (referencing) {
			throw pgrstError(
				409,
				'23503',
				`update or delete on table "jobs" violates foreign key constraint "options_job_id_fkey" on table "options"`,
				`Key (id)=(${referencing.data.job_id}) is still referenced from table "options".`,
			);
		}
	}

	private afterJobWrites(jobs: readonly Row[], previousStatus: ReadonlyMap<Row, CellValue>, actor: Actor, nowMs: number): void {
		this.hooks.jobsChanged(jobs);
		// Direct inserts arrange data as given; API writes that set `finished` get their download.
		if (!actor.rls) return;
		for (const job of jobs) {
			if (job.data.status === 'finished' && previousStatus.get(job) !== 'finished') this.hooks.jobFinished(job, nowMs);
		}
	}
}

function checkRowSecurity(tableName: TableName, row: Row, actor: Actor): void {
	const allowed = tableName === 'jobs' ? row.data.user_id === actor.userId : tableName === 'options';
	if (!allowed) throw rowSecurityViolation(tableName, 403);
}

export function rowSecurityViolation(tableName: TableName, status: 401 | 403) {
	return pgrstError(
		status,
		'42501',
		`new row violates row-level security policy for table "${tableName}"`,
		null,
		null,
		status === 401 ? { 'www-authenticate': 'Bearer' } : {},
	);
}

function checkRowConstraints(def: TableDef, row: Row): void {
	for (const column of def.columns) {
		if (column.notNull && row.data[column.name] === null) {
			throw pgrstError(
				400,
				'23502',
				`null value in column "${column.name}" of relation "${def.name}" violates not-null constraint`,
				failingRow(def, row),
			);
		}
	}
	if (def.name === 'options' && !validOptionMode(row.data)) {
		throw pgrstError(
			400,
			'23514',
			'new row for relation "options" violates check constraint "options_mode_check"',
			failingRow(def, row),
		);
	}
}

/**
 * options_mode_check: a known mode; `relative` needs a real relative_path and `absolute` a
 * replace_url (the column defaults '/' and '' mean "not supplied").
 */
function validOptionMode(data: Record<string, CellValue>): boolean {
	const mode = data.mode as string;
	if (!OPTION_MODES.includes(mode)) return false;
	if (mode === 'relative') return typeof data.relative_path === 'string' && !['', '/'].includes(data.relative_path);
	if (mode === 'absolute') return typeof data.replace_url === 'string' && data.replace_url !== '';
	return true;
}

function duplicateKey(def: TableDef, id: number) {
	return pgrstError(409, '23505', `duplicate key value violates unique constraint "${def.name}_pkey"`, `Key (id)=(${id}) already exists.`);
}

/** Postgres' `Failing row contains (...)`, hidden owner column last. */
function failingRow(def: TableDef, row: Row): string {
	const values = def.columns.map((c) => {
		if (c.name === 'created_at') return formatTimestampText(row.createdUs);
		const v = row.data[c.name];
		return v === null ? 'null' : String(v);
	});
	if (def.name !== 'jobs') values.push(row.ownerId);
	return `Failing row contains (${values.join(', ')}).`;
}
