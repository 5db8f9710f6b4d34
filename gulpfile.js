const path = require('path');
const { task, src, dest } = require('gulp');

// tsc emits only JavaScript: node and credential icons are copied beside the compiled files
// so that `icon: 'file:…'` resolves in dist exactly as it does in the sources.
task('build:icons', () =>
	src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest(path.resolve('dist')),
	),
);
