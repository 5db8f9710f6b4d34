/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- dev code, never shipped: these rules are for nodes/ and credentials/ (npx n8n-node lint reads every .ts file) */
// Why: `npm run typecheck` and the build's tsc in one TypeScript program (`npm run
// build:typechecked`, which test:all's build runs when a lane has the typecheck): nodes/ and
// credentials/, and the libraries' types they load, are parsed and checked once instead of twice.
// It reports what `tsc -p tsconfig.json --noEmit` reports and writes the same dist/ JavaScript as
// `tsc -p tsconfig.build.json` (the two configurations may differ only in what is emitted).
//
// With WEX_TYPECHECK_REPORT=<file> (.ci/test-all), errors only in code that does not ship go to
// that file and the build goes on (the typecheck step reports them); otherwise any error fails.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '..');

/** What the build's configuration may set differently: emit settings, and the test types it leaves out. */
const EMIT_ONLY = new Set([
	'outDir',
	'sourceMap',
	'removeComments',
	'declaration',
	'types',
	'configFilePath',
]);

function parseConfig(file: string): ts.ParsedCommandLine {
	const host: ts.ParseConfigFileHost = {
		...ts.sys,
		onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
			throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
		},
	};
	const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, file), {}, host);
	if (!parsed) throw new Error(`${file}: not read`);
	return parsed;
}

/** The whole program with the build's emit settings; throws if the two configurations drifted apart. */
function programOptions(all: ts.ParsedCommandLine, build: ts.ParsedCommandLine) {
	const keys = new Set([...Object.keys(all.options), ...Object.keys(build.options)]);
	const differing = [...keys].filter(
		(key) =>
			!EMIT_ONLY.has(key) &&
			JSON.stringify(all.options[key]) !== JSON.stringify(build.options[key]),
	);
	const outside = build.fileNames.filter((file) => !all.fileNames.includes(file));
	if (differing.length || outside.length)
		throw new Error(
			`tsconfig.build.json is no longer tsconfig.json's emit: options ${differing.join(', ')}; files ${outside.join(', ')}`,
		);
	return { ...build.options, types: all.options.types, configFilePath: all.options.configFilePath };
}

function main(): void {
	const all = parseConfig('tsconfig.json');
	const build = parseConfig('tsconfig.build.json');
	const program = ts.createProgram({
		rootNames: all.fileNames,
		options: programOptions(all, build),
	});
	const shipped = new Set(build.fileNames.map((file) => path.resolve(file)));
	const emitted = program
		.getSourceFiles()
		.filter((file) => shipped.has(path.resolve(file.fileName)))
		.flatMap((file) => program.emit(file).diagnostics);
	const diagnostics = [
		...all.errors,
		...build.errors,
		...ts.getPreEmitDiagnostics(program),
		...emitted,
	];
	const host: ts.FormatDiagnosticsHost = {
		getCanonicalFileName: (file) => file,
		getCurrentDirectory: () => root,
		getNewLine: () => '\n',
	};
	const report = process.env.WEX_TYPECHECK_REPORT;
	const text = ts.formatDiagnostics(diagnostics, host);
	if (!report) {
		process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
		if (diagnostics.length) process.exitCode = 1;
		return;
	}
	writeFileSync(report, text);
	// An error in what ships fails the build itself, as `tsc -p tsconfig.build.json` would.
	const inShipped = diagnostics.filter(
		(d) => !d.file || shipped.has(path.resolve(d.file.fileName)),
	);
	if (inShipped.length) {
		process.stderr.write(ts.formatDiagnosticsWithColorAndContext(inShipped, host));
		process.exitCode = 1;
	}
}

main();
