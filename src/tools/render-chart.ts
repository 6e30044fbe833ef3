/**
 * `render_chart`: draws the values as a bar chart and returns it as a PNG image (with a line of text
 * for models that take no images). Trusted: it reads and writes nothing.
 */
import * as z from '../lib/zod';
import { bytesToBase64 } from '../lib/base64';
import { encodePng } from './png';
import type { ServerTool } from './types';

const inputSchema = z.strictObject({
  values: z.withMeta(z.array(z.number()).check(z.minLength(1), z.maxLength(24)), { description: 'The bars, left to right.' }),
  title: z.withMeta(z.optional(z.string().check(z.maxLength(80))), { description: 'What the chart shows.' }),
});

const WIDTH = 240;
const HEIGHT = 120;
const BAR = [37, 99, 235];
const AXIS = [100, 110, 130];

export const renderChartTool: ServerTool<z.infer<typeof inputSchema>> = {
  name: 'render_chart',
  description: 'Draws numbers as a bar chart and returns it as a PNG image.',
  trust: true,
  inputSchema,
  permissionSubject: (input) => String(input.title ?? ''),
  async execute({ values, title }) {
    const png = await encodePng(WIDTH, HEIGHT, drawBars(values));
    const label = `A bar chart of ${values.length} value${values.length === 1 ? '' : 's'}${title ? ` (${title})` : ''}, from ${Math.min(...values)} to ${Math.max(...values)}.`;
    return [
      { type: 'text', text: label },
      { type: 'image', mimeType: 'image/png', data: bytesToBase64(png) },
    ];
  },
};

/** White ground, a baseline, one bar per value scaled to the largest magnitude. */
function drawBars(values: number[]): Uint8Array {
  const pixels = new Uint8Array(WIDTH * HEIGHT * 3).fill(255);
  const paint = (x: number, y: number, [r, g, b]: number[]) => pixels.set([r!, g!, b!], (y * WIDTH + x) * 3);
  const top = 8;
  const base = HEIGHT - 8;
  for (let x = 4; x < WIDTH - 4; x++) paint(x, base, AXIS);
  const largest = Math.max(...values.map(Math.abs), 1e-9);
  const slot = Math.floor((WIDTH - 8) / values.length);
  values.forEach((value, index) => {
    const height = Math.round((Math.abs(value) / largest) * (base - top));
    const left = 4 + index * slot + Math.floor(slot / 6);
    const right = 4 + (index + 1) * slot - Math.floor(slot / 6);
    for (let x = left; x < right; x++) for (let y = base - height; y < base; y++) paint(x, y, BAR);
  });
  return pixels;
}
