/** The OpenAPI document the Worker serves, checked by a real OpenAPI 3.1 validator (@readme/openapi-parser). */
import { validate } from '@readme/openapi-parser';
import { expect, inject, it } from 'vitest';

it('is a valid OpenAPI 3.1 document', async () => {
  const document = await (await fetch(`${inject('workerUrl')}/openapi.json`)).json();
  const result = await validate(document);
  if (!result.valid) throw new Error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
  expect(result.warnings).toEqual([]);

  // The validator does refuse a broken document (a response without its description).
  const broken = structuredClone(document);
  delete broken.paths['/healthz'].get.responses['200'].description;
  expect((await validate(broken)).valid).toBe(false);
});
