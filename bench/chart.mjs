// The SVG chart of turn cost against history length, drawn as text (no browser): turn latency and
// rows written per turn, on a logarithmic axis of stored messages.

/** @param {{ stored: number, turnMs: number, rowsWritten: number }[]} rows */
export function historyChartSvg(rows) {
  const width = 640;
  const height = 360;
  const margin = { left: 64, right: 64, top: 40, bottom: 56 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const logs = rows.map((row) => Math.log10(row.stored));
  const [minLog, maxLog] = [Math.min(...logs), Math.max(...logs)];
  const x = (stored) => margin.left + ((Math.log10(stored) - minLog) / (maxLog - minLog || 1)) * plotWidth;
  const niceMax = (value) => {
    const step = 10 ** Math.floor(Math.log10(Math.max(value, 1)));
    return Math.ceil((value * 1.2) / step) * step;
  };
  const msMax = niceMax(Math.max(...rows.map((row) => row.turnMs)));
  const rowsMax = niceMax(Math.max(...rows.map((row) => row.rowsWritten)));
  const yMs = (ms) => margin.top + plotHeight - (ms / msMax) * plotHeight;
  const yRows = (count) => margin.top + plotHeight - (count / rowsMax) * plotHeight;
  const line = (points) => points.map(([px, py], index) => `${index === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">Turn cost against stored history (no compaction)</text>`,
    ...ticks.map((t) => `<line x1="${margin.left}" x2="${width - margin.right}" y1="${yMs(t * msMax).toFixed(1)}" y2="${yMs(t * msMax).toFixed(1)}" stroke="#e5e5e5"/>`),
    ...ticks.map((t) => `<text x="${margin.left - 8}" y="${(yMs(t * msMax) + 4).toFixed(1)}" text-anchor="end" fill="#1f6feb">${Math.round(t * msMax)}</text>`),
    ...ticks.map((t) => `<text x="${width - margin.right + 8}" y="${(yRows(t * rowsMax) + 4).toFixed(1)}" fill="#d1242f">${Math.round(t * rowsMax)}</text>`),
    ...rows.map((row) => `<text x="${x(row.stored).toFixed(1)}" y="${height - margin.bottom + 18}" text-anchor="middle">${row.stored.toLocaleString('en')}</text>`),
    `<text x="${width / 2}" y="${height - 12}" text-anchor="middle">stored messages (log scale)</text>`,
    `<text transform="translate(18 ${height / 2}) rotate(-90)" text-anchor="middle" fill="#1f6feb">turn latency, ms (median)</text>`,
    `<text transform="translate(${width - 14} ${height / 2}) rotate(90)" text-anchor="middle" fill="#d1242f">SQLite rows written per turn</text>`,
    `<path d="${line(rows.map((row) => [x(row.stored), yMs(row.turnMs)]))}" fill="none" stroke="#1f6feb" stroke-width="2.5"/>`,
    `<path d="${line(rows.map((row) => [x(row.stored), yRows(row.rowsWritten)]))}" fill="none" stroke="#d1242f" stroke-width="2.5" stroke-dasharray="6 4"/>`,
    ...rows.map((row) => `<circle cx="${x(row.stored).toFixed(1)}" cy="${yMs(row.turnMs).toFixed(1)}" r="4" fill="#1f6feb"/>`),
    ...rows.map((row) => `<circle cx="${x(row.stored).toFixed(1)}" cy="${yRows(row.rowsWritten).toFixed(1)}" r="4" fill="#d1242f"/>`),
    `<line x1="${margin.left}" x2="${margin.left}" y1="${margin.top}" y2="${margin.top + plotHeight}" stroke="#333"/>`,
    `<line x1="${margin.left}" x2="${width - margin.right}" y1="${margin.top + plotHeight}" y2="${margin.top + plotHeight}" stroke="#333"/>`,
    '</svg>',
  ];
  return `${parts.join('\n')}\n`;
}
