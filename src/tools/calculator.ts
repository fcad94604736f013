import { calculatorParameters } from './parameters.js';
import { type Tool, ToolError } from './tool.js';

// A recursive-descent parser, one function per precedence level, lowest first:
//   expression := term (("+" | "-") term)*
//   term       := unary (("*" | "/" | "%") unary)*
//   unary      := ("-" | "+") unary | power
//   power      := primary ("^" unary)?        right-associative; binds tighter than a leading minus
//   primary    := number | "(" expression ")"
// No eval, no Function: the input is only ever read as these tokens.

const MAX_DEPTH = 1000;

type Token = { kind: 'number'; value: number; at: number } | { kind: 'op'; value: string; at: number };

export class CalculatorError extends ToolError {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const number = /^(\d+\.?\d*|\.\d+)/.exec(text.slice(i, i + 400));
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]), at: i });
      i += number[0].length;
      continue;
    }
    if ('+-*/%^()'.includes(ch)) {
      tokens.push({ kind: 'op', value: ch, at: i });
      i++;
      continue;
    }
    throw new CalculatorError(
      `Unexpected character "${ch}" at position ${i + 1}. Use numbers, + - * / % ^ and parentheses.`,
    );
  }
  return tokens;
}

class Parser {
  private pos = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly length: number,
  ) {}

  parse(): number {
    if (this.tokens.length === 0) throw new CalculatorError('The expression is empty.');
    const value = this.expression();
    const extra = this.tokens[this.pos];
    if (extra) {
      throw new CalculatorError(
        extra.value === ')'
          ? `Unbalanced parentheses: ")" at position ${extra.at + 1} has no matching "(".`
          : `Unexpected "${extra.value}" at position ${extra.at + 1}: an operator is missing before it.`,
      );
    }
    return value;
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private isOp(...ops: string[]): Token | undefined {
    const t = this.peek();
    return t?.kind === 'op' && ops.includes(t.value) ? t : undefined;
  }

  private expression(): number {
    let value = this.term();
    for (let op = this.isOp('+', '-'); op; op = this.isOp('+', '-')) {
      this.pos++;
      const right = this.term();
      value = finite(op.value === '+' ? value + right : value - right, op);
    }
    return value;
  }

  private term(): number {
    let value = this.unary();
    for (let op = this.isOp('*', '/', '%'); op; op = this.isOp('*', '/', '%')) {
      this.pos++;
      const right = this.unary();
      if (right === 0 && op.value === '/')
        throw new CalculatorError(`Division by zero at position ${op.at + 1}.`);
      if (right === 0 && op.value === '%')
        throw new CalculatorError(`Remainder by zero at position ${op.at + 1}.`);
      value = finite(op.value === '*' ? value * right : op.value === '/' ? value / right : value % right, op);
    }
    return value;
  }

  private unary(): number {
    const op = this.isOp('-', '+');
    if (!op) return this.power();
    this.pos++;
    const value = this.nested(() => this.unary());
    return op.value === '-' ? -value : value;
  }

  private power(): number {
    const base = this.primary();
    const op = this.isOp('^');
    if (!op) return base;
    this.pos++;
    const exponent = this.nested(() => this.unary());
    return finite(base ** exponent, op);
  }

  private primary(): number {
    const t = this.peek();
    if (!t)
      throw new CalculatorError(
        `The expression ends too early at position ${this.length + 1}: a number or "(" is missing.`,
      );
    if (t.kind === 'number') {
      this.pos++;
      return t.value;
    }
    if (t.value === '(') {
      this.pos++;
      const value = this.nested(() => this.expression());
      if (!this.isOp(')')) {
        throw new CalculatorError(`Unbalanced parentheses: "(" at position ${t.at + 1} is never closed.`);
      }
      this.pos++;
      return value;
    }
    throw new CalculatorError(`Unexpected "${t.value}" at position ${t.at + 1}: expected a number or "(".`);
  }

  /** Guards recursion so that absurd nesting is refused instead of overflowing the stack. */
  private nested(parse: () => number): number {
    if (++this.depth > MAX_DEPTH)
      throw new CalculatorError(`The expression nests deeper than ${MAX_DEPTH} levels.`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }
}

function finite(value: number, op: Token): number {
  if (Number.isNaN(value))
    throw new CalculatorError(`The result at "${op.value}" (position ${op.at + 1}) is not a real number.`);
  if (!Number.isFinite(value))
    throw new CalculatorError(`The result at "${op.value}" (position ${op.at + 1}) is too large (overflow).`);
  return value;
}

/** Evaluates an arithmetic expression; throws CalculatorError saying what is wrong and where. */
export function evaluate(expression: string): number {
  const value = new Parser(tokenize(expression), expression.length).parse();
  return value === 0 ? 0 : value; // no "-0"
}

/** 15 significant digits hide binary noise (0.1 + 0.2 → 0.3) without losing real precision. */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(15)));
}

export const calculatorTool: Tool<{ expression: string }> = {
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression exactly. Call it for any arithmetic instead of computing in your head. ' +
    'Supports + - * / % (remainder), ^ (power, right-associative), unary minus, parentheses and decimals.',
  parameters: calculatorParameters,
  input: () => import('./inputs.js').then((m) => m.calculatorInput),
  async run({ expression }) {
    return formatNumber(evaluate(expression));
  },
};
