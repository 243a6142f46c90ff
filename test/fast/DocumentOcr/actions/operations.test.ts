/**
 * The operations the router runs (actions/operations.ts) are the ones the editor offers: each is
 * an option of its resource's Operation field, and each shows its fields. An operation left out
 * of either would run in tests and never be picked by a user. The hint for Wait for Completion
 * off names every operation that has the field.
 */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { DocumentOcr } from '../../../../nodes/DocumentOcr/DocumentOcr.node';
import { resources } from '../../../../nodes/DocumentOcr/actions/operations';

const { properties, hints = [] } = new DocumentOcr().description;

/** The operations the router knows, as `resource.operation`. */
const known = Object.entries(resources).flatMap(([resource, operations]) =>
	Object.keys(operations).map((operation) => `${resource}.${operation}`),
);

/** The resource and operation values a field is shown for. */
const shownFor = (property: INodeProperties, name: 'resource' | 'operation') =>
	(property.displayOptions?.show?.[name] ?? []) as unknown[];

test("every operation the router knows is an option of its resource's Operation field, and no other", () => {
	const offered = properties
		.filter((property) => property.name === 'operation')
		.flatMap((field) =>
			((field.options ?? []) as INodePropertyOptions[]).map(
				(option) => `${String(shownFor(field, 'resource')[0])}.${String(option.value)}`,
			),
		);
	expect([...offered].sort()).toEqual([...known].sort());
});

/** The fields shown for `resource.operation`, its Operation field aside. */
function fieldsOf(key: string) {
	const [resource, operation] = key.split('.');
	return properties.filter(
		(property) =>
			property.name !== 'operation' &&
			shownFor(property, 'resource').includes(resource) &&
			shownFor(property, 'operation').includes(operation),
	);
}

test.each(known)('%s shows fields of its own', (key) => {
	expect(fieldsOf(key).length).toBeGreaterThan(0);
});

test('the hint for Wait for Completion off names every operation that has the field', () => {
	const hint = hints.find((h) => h.message.startsWith('Wait for Completion is off'));
	const named = JSON.parse(/\[[^\]]*\]/.exec(String(hint?.displayCondition))?.[0] ?? '[]');
	const waiting = known
		.filter((key) => fieldsOf(key).some((field) => field.name === 'waitForCompletion'))
		.map((key) => key.split('.')[1]);
	expect([...named].sort()).toEqual(waiting.sort());
});

/** The options of the Options collection shown for `resource.operation`, by name. */
const optionsOf = (key: string) =>
	fieldsOf(key)
		.filter((field) => field.name === 'options' && field.type === 'collection')
		.flatMap((field) => ((field.options ?? []) as INodeProperties[]).map((option) => option.name));

/** The operations that send a document: the six the issue names (Count Pages reads one, sends nothing). */
const SENDING = [
	'task.submit',
	'task.submitV2',
	'document.markdown',
	'document.recognize',
	'document.extract',
	'job.create',
];

test('Pages is an option of exactly the operations that send a document, as they bill', () => {
	const withPages = known.filter((key) => optionsOf(key).includes('pages'));
	expect([...withPages].sort()).toEqual([...SENDING].sort());
	const billing = known.filter((key) => {
		const [resource, operation] = key.split('.');
		return resources[resource][operation].bills === true;
	});
	expect([...billing].sort()).toEqual([...SENDING].sort());
	// Every operation with a document input sends it, but Count Pages.
	const reading = known.filter((key) =>
		fieldsOf(key).some((field) => field.name === 'documentSource'),
	);
	expect(reading.filter((key) => !SENDING.includes(key))).toEqual(['document.countPages']);
});

test('every operation that bills says how a split document joins, and only those', () => {
	const joins = Object.entries(resources).flatMap(([resource, operations]) =>
		Object.entries(operations).map(([name, operation]) => [
			`${resource}.${name}`,
			operation.bills === true,
			operation.join !== undefined && operation.join.id !== '',
		]),
	);
	expect(joins.filter(([, bills]) => bills).length).toBe(6);
	for (const [key, bills, joins_] of joins) expect([key, joins_]).toEqual([key, bills]);
});
