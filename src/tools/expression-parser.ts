/**
 * Arithmetic for the `calculator` tool: a recursive-descent parser over + - * / % ^, parentheses,
 * unary signs and decimals (`1.5`, `.5`, `2e3`). Never `eval`. `^` binds tighter than a unary minus
 * and to the right, as in mathematics: `-2^2` is -4, `2^3^2` is 512.
 */
import { ToolError } from './types';

const MAX_LENGTH = 1000;
const MAX_DEPTH = 100;

export function evaluateExpression(source: string): number {
  if (source.length > MAX_LENGTH) throw new ToolError(`The expression is longer than ${MAX_LENGTH} characters.`);
  const parser = new Parser(source);
  const value = parser.parseExpression(0);
  parser.skipSpaces();
  if (!parser.atEnd()) throw new ToolError(`Unexpected "${parser.peek()}" at position ${parser.position + 1}.`);
  if (!Number.isFinite(value)) throw new ToolError('The result is not a finite number.');
  return value;
}

class Parser {
  position = 0;
  constructor(private readonly source: string) {}

  atEnd(): boolean {
    return this.position >= this.source.length;
  }

  peek(): string {
    return this.source[this.position] ?? '';
  }

  skipSpaces(): void {
    while (/\s/.test(this.peek()) && !this.atEnd()) this.position++;
  }

  private take(char: string): boolean {
    this.skipSpaces();
    if (this.peek() !== char) return false;
    this.position++;
    return true;
  }

  // expression := term (("+" | "-") term)*
  parseExpression(depth: number): number {
    if (depth > MAX_DEPTH) throw new ToolError('The expression is nested too deeply.');
    let value = this.parseTerm(depth);
    for (;;) {
      if (this.take('+')) value += this.parseTerm(depth);
      else if (this.take('-')) value -= this.parseTerm(depth);
      else return value;
    }
  }

  // term := unary (("*" | "/" | "%") unary)*
  private parseTerm(depth: number): number {
    let value = this.parseUnary(depth);
    for (;;) {
      if (this.take('*')) value *= this.parseUnary(depth);
      else if (this.take('/')) value = divide(value, this.parseUnary(depth), '/');
      else if (this.take('%')) value = divide(value, this.parseUnary(depth), '%');
      else return value;
    }
  }

  // unary := ("-" | "+") unary | power
  private parseUnary(depth: number): number {
    if (depth > MAX_DEPTH) throw new ToolError('The expression is nested too deeply.');
    if (this.take('-')) return -this.parseUnary(depth + 1);
    if (this.take('+')) return this.parseUnary(depth + 1);
    return this.parsePower(depth);
  }

  // power := primary ("^" unary)?   (right-associative through unary)
  private parsePower(depth: number): number {
    const base = this.parsePrimary(depth);
    if (this.take('^')) return base ** this.parseUnary(depth + 1);
    return base;
  }

  // primary := number | "(" expression ")"
  private parsePrimary(depth: number): number {
    if (this.take('(')) {
      const value = this.parseExpression(depth + 1);
      if (!this.take(')')) throw new ToolError('A closing parenthesis is missing.');
      return value;
    }
    this.skipSpaces();
    const match = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.source.slice(this.position));
    if (!match) {
      if (this.atEnd()) throw new ToolError('The expression ends where a number was expected.');
      throw new ToolError(`Expected a number at position ${this.position + 1}, found "${this.peek()}".`);
    }
    this.position += match[0].length;
    return Number(match[0]);
  }
}

function divide(left: number, right: number, operator: '/' | '%'): number {
  if (right === 0) throw new ToolError('Division by zero.');
  return operator === '/' ? left / right : left % right;
}
