import { describe, expect, it } from 'vitest';
import { calculatorTool, evaluate, formatNumber } from '../../src/tools/calculator.js';

const signal = new AbortController().signal;

describe('calculator', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['-2^2', -4],
    ['2^3^2', 512],
    ['2^-1', 0.5],
    ['(-2)^2', 4],
    ['-7 % 3', -1],
    ['7 % -3', 1],
    ['--3', 3],
    ['+4 - -2', 6],
    ['  1234 *\t5678 ', 7006652],
    ['.5 + 1.25', 1.75],
    ['2 * -3 ^ 2', -18],
  ])('%s = %d', (expression, expected) => {
    expect(evaluate(expression)).toBe(expected);
  });

  it.each([
    ['2 + x', /Unexpected character "x" at position 5/],
    ['1 +', /ends too early at position 4/],
    ['(1 + 2', /"\(" at position 1 is never closed/],
    ['1 + 2)', /"\)" at position 6 has no matching "\("/],
    ['1 2', /Unexpected "2" at position 3: an operator is missing/],
    ['', /empty/],
    ['1/0', /Division by zero at position 2/],
    ['0/0', /Division by zero/],
    ['5 % 0', /Remainder by zero at position 3/],
    ['10^400', /too large \(overflow\)/],
    ['(-8)^0.5', /not a real number/],
    ['* 3', /Unexpected "\*" at position 1: expected a number/],
  ])('refuses %j', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });

  it('refuses absurd nesting instead of crashing', () => {
    const deep = `${'('.repeat(100_000)}1${')'.repeat(100_000)}`;
    expect(() => evaluate(deep)).toThrow(/nests deeper than 1000 levels/);
    expect(() => evaluate(`${'-'.repeat(100_000)}1`)).toThrow(/nests deeper/);
    expect(evaluate(`${'('.repeat(500)}1${')'.repeat(500)}`)).toBe(1);
  });

  it('returns the number as text, without binary noise', async () => {
    expect(await calculatorTool.run({ expression: '0.1 + 0.2' }, { signal })).toBe('0.3');
    expect(await calculatorTool.run({ expression: '1234*5678' }, { signal })).toBe('7006652');
    expect(formatNumber(-0)).toBe('0');
    expect(formatNumber(1e21)).toBe('1e+21');
  });
});
