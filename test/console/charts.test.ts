import assert from 'node:assert/strict'
import { test } from 'node:test'
import { h } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { chartGeometry, VolumeRateChart } from '../../src/http/pages/kit/charts.tsx'

/** The overview's charts (CONTRACT.md, Platform console): SVG drawn from numbers, on the server. */

const day = (label: string, volume: number, rate: number | null) => ({ label, volume, rate })

test('the bars grow with the volume and the line follows the rate', () => {
  const { bars, linePath, maxVolume } = chartGeometry([day('1', 10, 1), day('2', 5, 0.5), day('3', 0, 0)])
  assert.equal(maxVolume, 10)
  assert.ok(bars[0]!.height > bars[1]!.height && bars[1]!.height > bars[2]!.height)
  assert.equal(bars[2]!.height, 0)
  assert.equal(bars[0]!.y + bars[0]!.height, bars[2]!.y, 'every bar stands on the same base line')
  const points = [...linePath.matchAll(/([ML])([\d.]+),([\d.]+)/g)].map((m) => ({
    command: m[1],
    x: Number(m[2]),
    y: Number(m[3]),
  }))
  assert.deepEqual(
    points.map((p) => p.command),
    ['M', 'L', 'L'],
  )
  assert.ok(points[0]!.x < points[1]!.x && points[1]!.x < points[2]!.x, 'left to right, day by day')
  assert.ok(points[0]!.y < points[1]!.y && points[1]!.y < points[2]!.y, 'a lower rate is drawn lower')
  assert.equal(points[0]!.y, bars[0]!.y, '100 % at the top of the tallest bar')
})

test('a day without a rate breaks the line', () => {
  const { linePath } = chartGeometry([day('1', 1, 1), day('2', 0, null), day('3', 2, 0.5)])
  assert.match(linePath, /^M[\d.]+,[\d.]+ M[\d.]+,[\d.]+$/)
  assert.equal(chartGeometry([day('1', 1, 1), day('2', 0, null), day('3', 2, 0.5)]).dots.length, 2)
})

test('empty and single-day data draw without NaN or Infinity', () => {
  for (const points of [[], [day('1', 0, null)], [day('1', 7, 1)], [day('1', Number.NaN, Number.NaN)]]) {
    const geometry = chartGeometry(points)
    const svg = renderToString(
      h(VolumeRateChart, {
        id: 'c',
        title: 'T',
        description: 'D',
        volumeLabel: 'V',
        rateLabel: 'R',
        points,
      }),
    )
    assert.doesNotMatch(JSON.stringify(geometry), /NaN|Infinity|null/)
    assert.doesNotMatch(svg, /NaN|Infinity/)
    assert.match(svg, /role="img"/)
    assert.match(svg, /aria-labelledby="c-title c-desc"/)
    assert.match(svg, /<title id="c-title">T<\/title>/)
  }
})

test('every text is escaped', () => {
  const svg = renderToString(
    h(VolumeRateChart, {
      id: 'c',
      title: '<script>x</script>',
      description: '"&',
      volumeLabel: 'V',
      rateLabel: 'R',
      points: [day('<b>', 1, 1)],
    }),
  )
  assert.doesNotMatch(svg, /<script>|<b>/)
  assert.match(svg, /&lt;script>x&lt;\/script>/)
})
