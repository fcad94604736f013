// Rules (the lines a table is drawn with) from a page's operator list: thin filled rectangles, as TeX
// draws \hline and booktabs' rules, and stroked horizontal or vertical segments, as word processors
// draw cell borders. Coordinates are the page's, as pdf.js gives text positions.

/** A horizontal rule (y0 = y1) or a vertical one (x0 = x1), x0 ≤ x1 and y0 ≤ y1. */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The operator numbers this module reads, from pdf.js's OPS. */
export interface RuleOps {
  save: number;
  restore: number;
  transform: number;
  setLineWidth: number;
  constructPath: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  endPath: number;
  fill: number;
  eoFill: number;
}

/** Thicker than this (in points) is a box or a bar, not a rule. */
const THICKEST = 3;
/** Shorter than this is a tick, an underline's dash or a glyph's part. */
const SHORTEST = 8;

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const times = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [
  m[0] * x + m[2] * y + m[4],
  m[1] * x + m[3] * y + m[5],
];

/** A segment or a thin box as a rule, when it is thin enough and long enough to be one. */
function asRule(ax: number, ay: number, bx: number, by: number, thick: number): Rule | undefined {
  const [x0, x1, y0, y1] = [Math.min(ax, bx), Math.max(ax, bx), Math.min(ay, by), Math.max(ay, by)];
  const [w, h] = [x1 - x0, y1 - y0];
  if (thick > THICKEST) return undefined;
  if (h <= THICKEST && w >= SHORTEST) return { x0, x1, y0: (y0 + y1) / 2, y1: (y0 + y1) / 2 };
  if (w <= THICKEST && h >= SHORTEST) return { x0: (x0 + x1) / 2, x1: (x0 + x1) / 2, y0, y1 };
  return undefined;
}

// pdf.js's path commands in constructPath's buffer (DrawOPS).
const [MOVE, LINE, CURVE, QUAD, CLOSE] = [0, 1, 2, 3, 4];

/** The straight segments of a path buffer, in page coordinates; `undefined` when it has curves. */
function segments(buffer: ArrayLike<number>, m: Matrix): [number, number, number, number][] | undefined {
  const out: [number, number, number, number][] = [];
  let [cx, cy, sx, sy] = [0, 0, 0, 0];
  for (let k = 0; k < buffer.length; ) {
    const op = buffer[k++];
    if (op === MOVE || op === LINE) {
      const [x, y] = apply(m, buffer[k]!, buffer[k + 1]!);
      k += 2;
      if (op === LINE) out.push([cx, cy, x, y]);
      else [sx, sy] = [x, y];
      [cx, cy] = [x, y];
    } else if (op === CLOSE) {
      out.push([cx, cy, sx, sy]);
      [cx, cy] = [sx, sy];
    } else if (op === CURVE || op === QUAD) return undefined;
    else return undefined;
  }
  return out;
}

/**
 * The rules a page draws, from pdf.js's operator list (`fnArray`, `argsArray`). Filled paths count as
 * one rule when their box is thin; stroked paths give a rule for each straight segment that is
 * horizontal or vertical, however long the path (a grid drawn in one go).
 */
export function rulesOf(fnArray: ArrayLike<number>, argsArray: ArrayLike<unknown>, OPS: RuleOps): Rule[] {
  const rules: Rule[] = [];
  let ctm: Matrix = IDENTITY;
  let lineWidth = 1;
  const stack: [Matrix, number][] = [];
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === OPS.save) stack.push([ctm, lineWidth]);
    else if (fn === OPS.restore) [ctm, lineWidth] = stack.pop() ?? [IDENTITY, 1];
    else if (fn === OPS.transform) ctm = times(ctm, args as Matrix);
    else if (fn === OPS.setLineWidth) lineWidth = Number(args?.[0]) || 0;
    else if (fn === OPS.paintFormXObjectBegin) {
      stack.push([ctm, lineWidth]);
      if (Array.isArray(args?.[0])) ctm = times(ctm, args[0] as Matrix);
    } else if (fn === OPS.paintFormXObjectEnd) [ctm, lineWidth] = stack.pop() ?? [IDENTITY, 1];
    else if (fn === OPS.constructPath && args) {
      const [paint, [buffer], minMax] = args as [
        number,
        [ArrayLike<number> | null],
        ArrayLike<number> | null,
      ];
      // A clipping path (`re W n`) is not drawn.
      if (!buffer || !minMax || paint === OPS.endPath) continue;
      if (paint === OPS.fill || paint === OPS.eoFill) {
        const [ax, ay] = apply(ctm, minMax[0]!, minMax[1]!);
        const [bx, by] = apply(ctm, minMax[2]!, minMax[3]!);
        const rule = asRule(ax, ay, bx, by, 0);
        if (rule) rules.push(rule);
        continue;
      }
      // Stroked: the line width scaled as the path is (a hairline is 0 wide and still drawn).
      const thick = lineWidth * Math.hypot(ctm[0], ctm[1]);
      for (const [ax, ay, bx, by] of segments(buffer, ctm) ?? []) {
        const rule = asRule(ax, ay, bx, by, thick);
        if (rule) rules.push(rule);
      }
    }
  }
  return rules;
}
