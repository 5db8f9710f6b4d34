// Why: the e2e files in the order that fills two jest workers best (a fresh clone has no timings
// for jest's own order): the trigger modes (four n8n side by side, mostly waiting for their polls)
// take one worker, the others follow one another on the second, `npm start`'s test last on
// whichever frees first.
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = ['trigger-modes', 'editor-n8n', 'npm-start'];
const rank = (test) => {
	const index = ORDER.findIndex((name) => test.path.endsWith(`${name}.test.ts`));
	return index < 0 ? ORDER.length : index;
};

module.exports = class E2eSequencer extends Sequencer {
	sort(tests) {
		return [...tests].sort((a, b) => rank(a) - rank(b));
	}
};
