#!/usr/bin/env node
// What one character above U+00FF costs a model request (bench/experiments/README.md): a request of
// `MESSAGES` (2,000) short messages with the default tools' shape, serialized with `JSON.stringify`
// and encoded to UTF-8 as `fetch` does, `RUNS` (2,000) times, once with an ASCII apostrophe in one
// tool's description and once with a typographic one, alternating. In Node; no server.
const MESSAGES = Number(process.env.MESSAGES ?? 2000);
const RUNS = Number(process.env.RUNS ?? 2000);
const history = Array.from({ length: MESSAGES }, (_, index) => ({ role: index % 2 ? 'assistant' : 'user', content: `w${index % 10} w1 w2 w3 w4 message number ${index}` }));
const tools = (description) => [{ type: 'function', function: { name: 'agent_spawn', description, parameters: { type: 'object' } } }];
const encoder = new TextEncoder();
const variants = { 'ASCII apostrophe': "the sub-agent's session", 'typographic apostrophe': 'the sub-agent\u2019s session' };
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
for (let round = 0; round < 4; round++) {
  for (const [name, description] of Object.entries(variants)) {
    const started = performance.now();
    for (let run = 0; run < RUNS / 4; run++) encoder.encode(JSON.stringify({ model: 'm', messages: history, tools: tools(description) }));
    times[name] += performance.now() - started;
  }
}
for (const [name, ms] of Object.entries(times)) console.log(`${name.padEnd(24)} ${((ms / RUNS) * 1000).toFixed(0)} µs a request of ${MESSAGES} messages`);
