/** The recorded real streams of `test/fixtures/upstream/` (their sources in its SOURCES.md), as the stand-in upstream reads them. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURE_ROOT = join(import.meta.dirname, '..', 'fixtures', 'upstream');

/** Every recorded stream, as `dir/file` without the extension. */
export function fixtureNames(): string[] {
  return readdirSync(FIXTURE_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(join(FIXTURE_ROOT, dir.name))
        .filter((file) => file.endsWith('.sse'))
        .map((file) => `${dir.name}/${file.replace(/\.sse$/, '')}`),
    );
}

/** A recording's text, by `dir/file` without the extension. */
export function readFixture(name: string): string {
  return readFileSync(join(FIXTURE_ROOT, `${name}.sse`), 'utf8');
}

/** The model a recording names in its `message_start`. */
export function recordedModel(text: string): string {
  return /"model":"([^"]+)"/.exec(text)?.[1] ?? 'unknown';
}
