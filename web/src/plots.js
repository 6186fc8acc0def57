// Plots over time (uPlot), one point a second from the server's stats and the bytes
// this page received: tick ms p50/p99, vehicles, flock speed and polarization, bytes
// a second.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const KEEP = 300; // seconds shown

const SPECS = [
  { title: 'tick ms', series: [{ label: 'p50', stroke: '#4fc3f7' }, { label: 'p99', stroke: '#ff8a65' }] },
  { title: 'vehicles', series: [{ label: 'vehicles', stroke: '#81c784' }] },
  { title: 'flock', series: [{ label: 'speed', stroke: '#ffb74d', scale: 'speed' },
    { label: 'polarization', stroke: '#ba68c8', scale: 'pol' }] },
  { title: 'bytes/s', series: [{ label: 'received', stroke: '#fff176' }] },
];

// Axis labels of at most four characters or so, to fit the axis: 0.25, 40.8, 950,
// 12k, 3.4M.
function short(v) {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toFixed(a >= 1e7 ? 0 : 1)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(0)}k`;
  return `${+v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2)}`;
}

// The x range from the points held, a minute at least: uPlot's own, for a lone point,
// runs a day of milliseconds past it (years, in seconds), and it is what the range
// function would be given.
function timeRange(u) {
  const xs = u.data[0];
  const hi = xs.length ? xs[xs.length - 1] : Date.now() / 1000;
  return [Math.min(xs.length ? xs[0] : hi, hi - 60), hi];
}

export class Plots {
  constructor(parent) {
    this.data = SPECS.map((s) => [[], ...s.series.map(() => [])]);
    this.plots = SPECS.map((spec, i) => {
      const div = document.createElement('div');
      div.className = 'plot';
      parent.appendChild(div);
      const scales = { x: { time: true, range: timeRange } };
      const axes = [{ stroke: '#78909c', grid: { stroke: '#263238' }, size: 24 },
        { stroke: '#78909c', grid: { stroke: '#263238' }, size: 44,
          values: (u, splits) => splits.map(short) }];
      if (spec.title === 'flock') {
        scales.pol = { range: [0, 1] };
        axes[1].scale = 'speed';
        axes.push({ scale: 'pol', side: 1, stroke: '#ba68c8', grid: { show: false }, size: 34 });
      }
      return new uPlot({
        title: spec.title, width: 280, height: 110, scales, axes,
        legend: { show: true, live: false },
        cursor: { show: false },
        series: [{}, ...spec.series.map((s) => ({ ...s, width: 1.5, points: { show: false } }))],
      }, this.data[i], div);
    });
  }

  // One second's figures: stats is the server's stats object.
  add(stats, bytesPerSecond) {
    const t = Date.now() / 1000;
    const rows = [
      [stats.tick_ms_p50, stats.tick_ms_p99],
      [stats.vehicles],
      [stats.flock_mean_speed ?? null, stats.flock_polarization ?? null],
      [bytesPerSecond],
    ];
    rows.forEach((values, i) => {
      const d = this.data[i];
      d[0].push(t);
      values.forEach((v, k) => d[k + 1].push(v));
      if (d[0].length > KEEP) d.forEach((col) => col.shift());
      this.plots[i].setData(d);
    });
  }
}
