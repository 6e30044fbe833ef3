#!/usr/bin/env node
/**
 * Keeps the house in the shape docs/architecture.md draws, so that it stays that way as it grows:
 * - no source file over 300 lines, the session (`session/session.ts`, its Durable Object's body) under 250;
 * - no function over 100 lines;
 * - no import circle among the source files, type imports included;
 * - the core floors (agent, providers, tools, protocol, transport, api, lib) import nothing from the floors above
 *   them (http, session, users, the configuration's files, env.ts, index.ts) nor from the platform (`cloudflare:*`);
 * - the Worker's request path (`http/handle-request.ts` and what it imports, not lazily and not for
 *   types) imports no zod (`lib/zod.ts`), nor does the chat socket's route: a Worker isolate's first
 *   turn or socket then never evaluates it (the routes that need it load it; bench/PROFILE.md, "A
 *   Worker's turn without zod");
 * - a session's transactions go through `SessionMeta.transaction` (`session/store/meta.ts`): what the
 *   stores keep of their writes (the kept messages, the message count, a branch's ancestors, the
 *   table names, the session's own rows) is dropped when one rolls back, which a `transactionSync`
 *   called elsewhere would not tell them.
 * Run by `npm test` (and alone: `npm run check:structure`). Prints every breach, exits 1 on any.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
const SRC = join(ROOT, 'src');
const MAX_FILE_LINES = 300;
const MAX_OBJECT_LINES = 250;
const OBJECT_FILE = 'session/session.ts';
const MAX_FUNCTION_LINES = 100;
const CORE = ['agent', 'providers', 'tools', 'protocol', 'transport', 'api', 'lib'];
const UPPER = ['http', 'session', 'users', 'config.ts', 'config-vars.ts', 'config-readings.ts', 'load-config.ts', 'env.ts', 'index.ts'];
const SESSION_TRANSACTIONS = 'session/store/meta.ts';
const WORKER_PATHS = ['http/handle-request.ts', 'http/routes/socket.ts'];
const ZOD = 'lib/zod.ts';

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const breaches = [];
const graph = new Map();
/** The imports a module evaluates as it loads: not `import()`, not a type's. */
const loaded = new Map();

for (const file of files) {
  const name = relative(SRC, file);
  const text = readFileSync(file, 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const limit = name === OBJECT_FILE ? MAX_OBJECT_LINES - 1 : MAX_FILE_LINES;
  if (lines > limit) breaches.push(`${name}: ${lines} lines (at most ${limit})`);
  if (name.startsWith('session/') && name !== SESSION_TRANSACTIONS && /\btransactionSync\b/.test(text)) {
    breaches.push(`${name}: a transaction of the session's storage outside SessionMeta.transaction (${SESSION_TRANSACTIONS})`);
  }

  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = [];
  const loads = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push(node.moduleSpecifier.text);
      if (!typeOnly(node)) loads.push(node.moduleSpecifier.text);
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) {
      imports.push(node.arguments[0].text);
    }
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > MAX_FUNCTION_LINES) {
        const label = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        breaches.push(`${name}:${start + 1}: function ${label} is ${end - start + 1} lines (at most ${MAX_FUNCTION_LINES})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  const floor = name.split('/')[0];
  const targets = [];
  for (const spec of imports) {
    if (spec.startsWith('cloudflare:') && CORE.includes(floor)) breaches.push(`${name}: a core file imports the platform (${spec})`);
    if (!spec.startsWith('.')) continue;
    const target = resolveImport(dirname(file), spec);
    if (!target) continue;
    targets.push(target);
    const top = relative(SRC, target).split('/')[0];
    if (CORE.includes(floor) && UPPER.includes(top)) breaches.push(`${name}: a core file imports an upper floor (${relative(SRC, target)})`);
  }
  graph.set(file, targets);
  loaded.set(file, loads.filter((spec) => spec.startsWith('.')).map((spec) => resolveImport(dirname(file), spec)).filter(Boolean));
}

for (const start of WORKER_PATHS) {
  const zodPath = pathTo(join(SRC, start), join(SRC, ZOD), loaded);
  if (zodPath) breaches.push(`the Worker's request path loads zod: ${zodPath.map((file) => relative(SRC, file)).join(' → ')}`);
}

for (const cycle of cycles(graph)) breaches.push(`import circle: ${cycle.map((file) => relative(SRC, file)).join(' → ')}`);

if (breaches.length > 0) {
  console.error(`check:structure: ${breaches.length} breach${breaches.length === 1 ? '' : 'es'}`);
  for (const breach of breaches) console.error(`  ${breach}`);
  process.exit(1);
}
console.log(`check:structure: ${files.length} files; every file, function, import and floor in shape`);

function resolveImport(fromDir, spec) {
  const base = resolve(fromDir, spec);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    try {
      if (statSync(candidate).isFile() && candidate.endsWith('.ts')) return candidate;
    } catch {
      // Not this one.
    }
  }
  return undefined;
}

/** Whether a declaration imports or re-exports types only (`import type`, `export type`, or every name a type). */
function typeOnly(node) {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly || (node.exportClause && ts.isNamedExports(node.exportClause) && node.exportClause.elements.length > 0 && node.exportClause.elements.every((element) => element.isTypeOnly));
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const names = clause.namedBindings;
  return !clause.name && names !== undefined && ts.isNamedImports(names) && names.elements.length > 0 && names.elements.every((element) => element.isTypeOnly);
}

/** The first chain of imports from `from` to `to` in `edges`, or undefined. */
function pathTo(from, to, edges) {
  const before = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift();
    if (node === to) {
      const path = [];
      for (let at = node; at !== undefined; at = before.get(at)) path.unshift(at);
      return path;
    }
    for (const next of edges.get(node) ?? []) {
      if (before.has(next)) continue;
      before.set(next, node);
      queue.push(next);
    }
  }
  return undefined;
}

/** The import graph's strongly connected components of more than one file (or a file importing itself). */
function cycles(edges) {
  let index = 0;
  const stack = [];
  const meta = new Map();
  const found = [];
  const connect = (node) => {
    meta.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!meta.has(next)) {
        connect(next);
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).low);
      } else if (meta.get(next).onStack) {
        meta.get(node).low = Math.min(meta.get(node).low, meta.get(next).index);
      }
    }
    if (meta.get(node).low === meta.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        meta.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) found.push(component.reverse());
    }
  };
  for (const node of edges.keys()) if (!meta.has(node)) connect(node);
  return found;
}
