/**
 * The README's tour and the walk-through print what they show. Each example that is one `curl` with
 * its whole output below it (a ```json or ```text block) is run, in the document's order, against
 * the Worker with the demo model, and its answer compared with the block: turn ids and times aside,
 * and in an SSE listing, the events a `⋮ (… ids A to B)` line stands for. Examples written with
 * their output in comments (`# …`) show a part of it, and those that show headers (`curl -i`) come
 * from a deployment's settings (its quotas): neither is run here.
 */
import { describe, expect, it } from 'vitest';
import readme from '../../README.md?raw';
import walkthrough from '../../docs/walkthrough.md?raw';
import { fetchWorker } from '../helpers/api';

type Example = { line: number; command: string; kind: 'json' | 'text'; output: string };

/** The examples of a document: a ```sh block of one curl, followed at once by its output's block. */
function examples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({
    lang: match[1]!,
    body: match[2]!,
    line: markdown.slice(0, match.index).split('\n').length,
    end: match.index! + match[0].length,
    start: match.index!,
  }));
  const found: Example[] = [];
  for (const [index, block] of blocks.entries()) {
    const next = blocks[index + 1];
    if (block.lang !== 'sh' || !next || (next.lang !== 'json' && next.lang !== 'text')) continue;
    if (markdown.slice(block.end, next.start).trim() !== '') continue;
    const command = block.body.replace(/\\\n\s*/g, ' ').trim();
    if (command.split('\n').length !== 1 || !command.startsWith('curl ')) continue;
    // A text block is an SSE listing; one that shows headers (`curl -i`) comes from a deployment's settings.
    if (next.lang === 'text' && !next.body.startsWith('event:')) continue;
    found.push({ line: block.line, command, kind: next.lang, output: next.body });
  }
  return found;
}

/** A shell command's words: single and double quotes, no expansions (the examples use none). */
function words(command: string): string[] {
  const out: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) out.push(match[1] ?? match[2]?.replace(/\\(.)/g, '$1') ?? match[3]!);
  return out;
}

/** What curl would send. */
function requestOf(command: string): { path: string; init: RequestInit } {
  const args = words(command).slice(1);
  const headers: Record<string, string> = {};
  let url = '';
  let method: string | undefined;
  let body: string | undefined;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === '-H') {
      const [name, ...value] = args[++at]!.split(':');
      headers[name!.trim().toLowerCase()] = value.join(':').trim();
    } else if (arg === '-d') body = args[++at];
    else if (arg === '-X') method = args[++at];
    else if (!arg.startsWith('-')) url = arg;
  }
  const path = url.replace(/^(https?:\/\/)?(127\.0\.0\.1|localhost)(:\d+)?/, '');
  return { path, init: { method: method ?? (body !== undefined ? 'POST' : 'GET'), headers, ...(body !== undefined ? { body } : {}) } };
}

/** Turn ids and times differ from run to run. */
const normal = (text: string) =>
  text.replace(/turn_[0-9a-f]{24}/g, 'turn_…').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '…time…');

type Event = { event: string; id: string; data: string };

function sse(text: string): Event[] {
  return text
    .split('\n\n')
    .map((chunk) => chunk.trim())
    .filter((chunk) => chunk.startsWith('event:'))
    .map((chunk) => {
      const field = (name: string) => chunk.split('\n').find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? '';
      return { event: field('event'), id: field('id'), data: normal(field('data')) };
    });
}

/** The ids a listing leaves out: `⋮ (… ids 7 to 14)`. */
function elided(listing: string): (id: number) => boolean {
  const ranges = [...listing.matchAll(/^⋮ .*ids (\d+) to (\d+)\)$/gm)].map((match) => [Number(match[1]), Number(match[2])] as const);
  return (id) => ranges.some(([from, to]) => id >= from && id <= to);
}

describe.each([
  ['README.md', readme],
  ['docs/walkthrough.md', walkthrough],
])('%s prints what it shows', (_name, markdown) => {
  const found = examples(markdown);

  it('has examples to run', () => {
    expect(found.length).toBeGreaterThan(1);
  });

  it.each(found.map((example) => [example.line, example] as const))('the example at line %i', async (_line, example) => {
    const { path, init } = requestOf(example.command);
    const answered = await (await fetchWorker(path, init)).text();
    if (example.kind === 'json') {
      expect(JSON.parse(normal(answered))).toEqual(JSON.parse(normal(example.output)));
      return;
    }
    const skip = elided(example.output);
    expect(sse(answered).filter((event) => !skip(Number(event.id)))).toEqual(sse(example.output));
  });
});
