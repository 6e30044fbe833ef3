/**
 * The embedded demo model's id: the model of a deployment that names none (`MODEL`). Apart from the
 * provider, whose rules import the content schemas: a Worker reads the configuration without them.
 */
export const DEMO_MODEL_ID = 'demo:demo';
