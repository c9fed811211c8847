/**
 * Charts drawn on the server as SVG, from numbers: a bar per day for volume and a line for the
 * success rate. No script; the figures are also given as text (the caller shows them in a table
 * beside the chart), so the picture is never the only way to read them.
 */

/** The drawing area, in SVG units. */
const width = 600
const height = 200
const left = 48
const right = 48
const top = 24
const bottom = 28
const plotWidth = width - left - right
const plotHeight = height - top - bottom

export interface ChartPoint {
  /** The label of the point on the horizontal axis (a date). */
  label: string
  volume: number
  /** 0 to 1; null when nothing ended that day (the line is broken there). */
  rate: number | null
}

export interface ChartGeometry {
  bars: { x: number; y: number; width: number; height: number }[]
  /** The success-rate line: `M`/`L` commands, a new `M` after each day without a rate. */
  linePath: string
  /** A dot on each day that has a rate, so a lone day is seen too. */
  dots: { x: number; y: number }[]
  maxVolume: number
}

function finite(value: number): number {
  return Number.isFinite(value) && value > 0 ? value : 0
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

/** Where each bar and each point of the line sit; every coordinate a finite number. */
export function chartGeometry(points: readonly ChartPoint[]): ChartGeometry {
  const maxVolume = Math.max(1, ...points.map((point) => finite(point.volume)))
  const slot = points.length === 0 ? plotWidth : plotWidth / points.length
  const barWidth = round(Math.max(1, slot * 0.7))
  const bars = points.map((point, index) => {
    const barHeight = round((finite(point.volume) / maxVolume) * plotHeight)
    return {
      x: round(left + index * slot + (slot - barWidth) / 2),
      y: round(top + plotHeight - barHeight),
      width: barWidth,
      height: barHeight,
    }
  })
  let linePath = ''
  let drawing = false
  const dots: ChartGeometry['dots'] = []
  points.forEach((point, index) => {
    if (point.rate === null || !Number.isFinite(point.rate)) {
      drawing = false
      return
    }
    const rate = Math.min(1, Math.max(0, point.rate))
    const x = round(left + index * slot + slot / 2)
    const y = round(top + plotHeight - rate * plotHeight)
    linePath += `${linePath ? ' ' : ''}${drawing ? 'L' : 'M'}${x},${y}`
    dots.push({ x, y })
    drawing = true
  })
  return { bars, linePath, dots, maxVolume }
}

/** Colours with a contrast of at least 4.5:1 against white. */
const barColour = '#1d4f91'
const lineColour = '#b3261e'
const textColour = '#1f1f1f'

/**
 * Daily volume as bars (left axis) and success rate as a line (right axis, 0 to 100 %), with a
 * title and a description named by `aria-labelledby`; `role="img"` so it is read as one picture.
 */
export function VolumeRateChart(props: {
  id: string
  title: string
  description: string
  volumeLabel: string
  rateLabel: string
  points: readonly ChartPoint[]
}) {
  const { bars, linePath, dots, maxVolume } = chartGeometry(props.points)
  const first = props.points[0]?.label ?? ''
  const last = props.points[props.points.length - 1]?.label ?? ''
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-labelledby={`${props.id}-title ${props.id}-desc`}
      id={props.id}
      class="chart"
      width="100%"
      height={height}
    >
      <title id={`${props.id}-title`}>{props.title}</title>
      <desc id={`${props.id}-desc`}>{props.description}</desc>
      <line x1={left} y1={top + plotHeight} x2={width - right} y2={top + plotHeight} stroke={textColour} />
      {bars.map((bar, index) => (
        <rect
          key={props.points[index]?.label ?? index}
          x={bar.x}
          y={bar.y}
          width={bar.width}
          height={bar.height}
          fill={barColour}
        />
      ))}
      {linePath && <path d={linePath} fill="none" stroke={lineColour} stroke-width={2} />}
      {dots.map((dot) => (
        <circle
          key={`${dot.x},${dot.y}`}
          cx={dot.x}
          cy={dot.y}
          r={4}
          fill={lineColour}
          stroke="#ffffff"
          stroke-width={1.5}
        />
      ))}
      <g fill={textColour} font-size={11}>
        <text x={left - 4} y={top + 4} text-anchor="end">
          {maxVolume}
        </text>
        <text x={left - 4} y={top + plotHeight} text-anchor="end">
          0
        </text>
        <text x={width - right + 4} y={top + 4}>
          100 %
        </text>
        <text x={width - right + 4} y={top + plotHeight}>
          0 %
        </text>
        <text x={left} y={height - 8}>
          {first}
        </text>
        <text x={width - right} y={height - 8} text-anchor="end">
          {last}
        </text>
        <text x={left} y={12} fill={barColour}>
          ■ {props.volumeLabel}
        </text>
        <text x={width - right} y={12} fill={lineColour} text-anchor="end">
          — {props.rateLabel}
        </text>
      </g>
    </svg>
  )
}
