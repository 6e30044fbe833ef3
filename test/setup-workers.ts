/**
 * Runs in every workers test file: no call of the Worker leaves work running past its test, and the
 * Worker's log lines are shown for a failed test only.
 */
import { afterEach, beforeEach } from 'vitest';
import { settleWorkerCalls } from './helpers/api';

afterEach(settleWorkerCalls);

/**
 * The console is not vitest's here (`disableConsoleIntercept`, vitest.config.ts says why), so its
 * `silent: 'passed-only'` cannot sort the lines by test. The lines are kept in memory instead, from
 * whatever context logs them (a pure push, no I/O), and written out when a test fails. A line logged
 * between two tests belongs to neither and is dropped with the next test's start.
 */
const LEVELS = ['log', 'info', 'debug', 'warn', 'error'] as const;
type Level = (typeof LEVELS)[number];
const write = Object.fromEntries(LEVELS.map((level) => [level, console[level].bind(console)])) as Record<Level, (...args: unknown[]) => void>;
const kept: { level: Level; args: unknown[] }[] = [];
for (const level of LEVELS) console[level] = (...args: unknown[]) => void kept.push({ level, args });

beforeEach(({ onTestFailed }) => {
  kept.length = 0;
  onTestFailed(() => {
    for (const { level, args } of kept.splice(0)) write[level](...args);
  });
});
