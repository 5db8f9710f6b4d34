const path = require('path');
const { task, src, dest } = require('gulp');

// tsc emits only JavaScript: node and credential icons are copied beside the compiled files
// so that `icon: 'file:…'` resolves in dist exactly as it does in the sources.
// The package entry point goes to dist too, so the published tarball holds only dist/ (npm
// always packs the `main` file). The codex files (`*.node.json`: categories, aliases, documentation
// links) must sit beside their `.node.js` for n8n to read them.
task('build:icons', () =>
	src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}', 'index.js'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.resolve('dist'))),
);
