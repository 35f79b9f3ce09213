import * as d3 from 'd3';

const MARGIN = { top: 16, right: 16, bottom: 28, left: 48 };

function frame(container) {
  const { width } = container.getBoundingClientRect();
  const height = Math.max(200, width * 0.45);
  const svg = d3.select(container).selectAll('svg').data([null]).join('svg').attr('width', width).attr('height', height);
  svg.selectAll('*').remove();
  return { svg, width: width - MARGIN.left - MARGIN.right, height: height - MARGIN.top - MARGIN.bottom };
}

function tooltip(container) {
  return d3.select(container).selectAll('.tip').data([null]).join('div').attr('class', 'tip')
    .style('position', 'absolute').style('pointer-events', 'none').style('opacity', 0);
}

function responsive(container, draw) {
  const observer = new ResizeObserver(() => draw());
  observer.observe(container);
  draw();
  return () => observer.disconnect();
}

/** Line chart of { date, value } with a zoomable time axis. */
export function lineChart(container, data) {
  return responsive(container, () => {
    const { svg, width, height } = frame(container);
    const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
    const x = d3.scaleUtc(d3.extent(data, (d) => d.date), [0, width]);
    const y = d3.scaleLinear([0, d3.max(data, (d) => d.value)], [height, 0]).nice();
    const xAxis = g.append('g').attr('transform', `translate(0,${height})`).call(d3.axisBottom(x));
    g.append('g').call(d3.axisLeft(y).tickFormat(d3.format('~s')));
    const line = (scale) => d3.line().x((d) => scale(d.date)).y((d) => y(d.value));
    const path = g.append('path').datum(data).attr('fill', 'none').attr('stroke', 'steelblue').attr('d', line(x));
    const tip = tooltip(container);
    svg.call(d3.zoom().scaleExtent([1, 20]).on('zoom', (event) => {
      const zx = event.transform.rescaleX(x);
      xAxis.call(d3.axisBottom(zx));
      path.attr('d', line(zx));
    }));
    svg.on('mousemove', (event) => {
      const date = x.invert(d3.pointer(event)[0] - MARGIN.left);
      const d = data[d3.bisector((p) => p.date).center(data, date)];
      tip.style('opacity', 1).style('left', `${event.offsetX + 12}px`).style('top', `${event.offsetY}px`)
        .text(`${d3.utcFormat('%b %d')(d.date)}: ${d3.format(',')(d.value)}`);
    }).on('mouseleave', () => tip.style('opacity', 0));
  });
}

/** Bar chart of { label, value }. */
export function barChart(container, data) {
  return responsive(container, () => {
    const { svg, width, height } = frame(container);
    const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
    const x = d3.scaleBand(data.map((d) => d.label), [0, width]).padding(0.2);
    const y = d3.scaleLinear([0, d3.max(data, (d) => d.value)], [height, 0]).nice();
    g.append('g').attr('transform', `translate(0,${height})`).call(d3.axisBottom(x));
    g.append('g').call(d3.axisLeft(y).tickFormat(d3.format('~s')));
    const tip = tooltip(container);
    g.selectAll('rect').data(data).join('rect').attr('x', (d) => x(d.label)).attr('y', (d) => y(d.value))
      .attr('width', x.bandwidth()).attr('height', (d) => height - y(d.value)).attr('fill', '#4f46e5')
      .on('mousemove', (event, d) => tip.style('opacity', 1).style('left', `${event.offsetX + 12}px`)
        .style('top', `${event.offsetY}px`).text(`${d.label}: ${d3.format(',')(d.value)}`))
      .on('mouseleave', () => tip.style('opacity', 0));
  });
}

/** Stacked area chart of rows { date, [series]: value }. */
export function stackedAreaChart(container, rows, series) {
  return responsive(container, () => {
    const { svg, width, height } = frame(container);
    const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);
    const stacked = d3.stack().keys(series)(rows);
    const x = d3.scaleUtc(d3.extent(rows, (d) => d.date), [0, width]);
    const y = d3.scaleLinear([0, d3.max(stacked.at(-1), (d) => d[1])], [height, 0]).nice();
    const color = d3.scaleOrdinal(series, d3.schemeTableau10);
    g.selectAll('path').data(stacked).join('path').attr('fill', (s) => color(s.key))
      .attr('d', d3.area().x((d) => x(d.data.date)).y0((d) => y(d[0])).y1((d) => y(d[1])));
    g.append('g').attr('transform', `translate(0,${height})`).call(d3.axisBottom(x));
    g.append('g').call(d3.axisLeft(y).tickFormat(d3.format('~s')));
  });
}
