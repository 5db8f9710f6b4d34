// The tables of bad input each resource's tests run: one test per case, each checking that the
// node refuses it the way users need, before any request.
import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Service } from '../support';
import { runError } from './helpers';

/**
 * Asserts that a run fails on bad input the way users need it to: a NodeOperationError whose
 * message names the field, pointing at item 0, found before any request was sent.
 */
async function expectInputError(
	service: Service,
	parameters: INodeParameters,
	message: string,
): Promise<void> {
	const error = await runError(service, parameters);
	expect(error).toBeInstanceOf(NodeOperationError);
	expect(error.message).toContain(message);
	expect((error as unknown as NodeOperationError).context.itemIndex).toBe(0);
	expect(service.emulator.log).toHaveLength(0);
}

/** A case of an input-error table: its name, the node's parameters and the message expected. */
export type InputErrorCase = [name: string, parameters: INodeParameters, message: string];

/** One test per case: the run fails the way expectInputError asks, before any request. */
export function itRejectsInput(cases: InputErrorCase[], service: () => Service): void {
	it.each(cases)(
		'%s: NodeOperationError naming the field and the item, no request',
		async (_name, parameters, message) => {
			await expectInputError(service(), parameters, message);
		},
	);
}

/**
 * Cases for an ID field given values that are no whole number greater than 0: each value in
 * each place, a place being the parameters of one operation (named by its key) around the value.
 */
export function badIdCases(
	field: string,
	places: Record<string, (bad: string) => INodeParameters>,
): InputErrorCase[] {
	return ['abc', '0', '1.5'].flatMap((bad) =>
		Object.entries(places).map(
			([operation, parameters]): InputErrorCase => [
				`${operation} with ${field} "${bad}"`,
				parameters(bad),
				`${field} must be a whole number greater than 0`,
			],
		),
	);
}
