// `npm run typecheck`: the Worker's generated types checked against wrangler.toml, then the three
// TypeScript projects (the Worker and its workerd tests, the Node-side tests and configs, the client
// package), the projects at once: each `tsc` is one process on one core, and one after another they
// took a minute on a 2-core machine. Each check's output is printed whole once it ends, named, so
// that errors are not interleaved; the script fails if any check does.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const bin = (name) => join(resolve(import.meta.dirname, '..'), 'node_modules', '.bin', name);

const checks = [
  ['the Worker and its tests', bin('tsc'), ['--noEmit']],
  ['the Node-side tests and configs', bin('tsc'), ['--noEmit', '-p', 'tsconfig.node.json']],
  ['the client package', bin('tsc'), ['--noEmit', '-p', 'client/tsconfig.json']],
];

/** One command, its output gathered; resolves to its exit code. */
function run(name, command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      if (code !== 0 || name === 'the generated Worker types') process.stdout.write(`── typecheck: ${name} ${code === 0 ? 'passed' : 'failed'}\n${output}`);
      resolve(code ?? 1);
    });
  });
}

const types = await run('the generated Worker types', bin('wrangler'), ['types', '--env-interface=WranglerBindings', 'worker-configuration.d.ts', '--check']);
const codes = types === 0 ? await Promise.all(checks.map(([name, command, args]) => run(name, command, args))) : [types];
process.exit(codes.every((code) => code === 0) ? 0 : 1);
