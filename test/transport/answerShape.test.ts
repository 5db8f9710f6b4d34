// The shape rules of answerShape.ts on the answers no emulator fault gives (a Content-Range that
// does not parse, a list of values, a token that is a list); the others are met over real HTTP in
// test/nodes/brokenAnswers.test.ts, test/trigger/brokenAnswers.test.ts and the credential tests.
import { brokenAnswer } from '../../nodes/shared/transport/answerShape';

const json = { 'content-type': 'application/json; charset=utf-8' };
const answer = (body: unknown, headers: Record<string, string> = json, statusCode = 200) => ({
	body,
	headers,
	statusCode,
});

describe('brokenAnswer', () => {
	it('takes a list of records, with or without a Content-Range that parses', () => {
		for (const range of [undefined, '0-2/10', '*/0', '0-24/*', '*/*'])
			expect(
				brokenAnswer(
					answer([{ id: 1 }], range ? { ...json, 'content-range': range } : json),
					'rows',
				),
			).toBeUndefined();
	});

	it('takes no body from a write answered 201 or 204, never from a 200', () => {
		expect(brokenAnswer(answer('', {}, 201), 'rows')).toBeUndefined();
		expect(brokenAnswer(answer('', {}, 204), 'rows')).toBeUndefined();
		expect(brokenAnswer(answer('', {}, 200), 'rows')).toMatchObject({
			broken: true,
			message: 'The service answered with an empty body where a list was due',
		});
	});

	it.each([
		[answer([1, 2]), 'a list of values where a list of records was due'],
		[answer([{ id: 1 }], { ...json, 'content-range': 'rows 0-2 of many' }), 'a Content-Range'],
		[answer('<html>hi</html>', {}), 'an HTML page, not JSON: is a proxy in between?'],
		[answer('[{"id":1,"url":"https://a.exa'), 'a JSON body cut off after 29 bytes'],
		[answer('Service Unavailable', { 'content-type': 'text/plain' }), 'text, not JSON'],
	])('names what came back where rows were due (%#)', (response, words) => {
		const failure = brokenAnswer(response, 'rows');
		expect(failure).toMatchObject({ broken: true, status: 200 });
		expect(failure?.message).toContain(words);
	});

	it('wants an object for a record (the login token): a list or a page is named', () => {
		expect(brokenAnswer(answer({ access_token: 'x' }), 'record')).toBeUndefined();
		expect(brokenAnswer(answer([{ access_token: 'x' }]), 'record')?.message).toBe(
			'The service answered with a list where an object was due',
		);
		expect(brokenAnswer(answer(undefined), 'record')?.message).toBe(
			'The service answered with an empty body where an object was due',
		);
	});
});
