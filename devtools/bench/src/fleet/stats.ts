/** The `q` quantile (0–1) of `values` by the nearest-rank rule; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  if (!values.length) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** Least-squares slope of `y` over `x` (0 for fewer than two points). */
export function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0
  const mx = points.reduce((sum, p) => sum + p.x, 0) / points.length
  const my = points.reduce((sum, p) => sum + p.y, 0) / points.length
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0)
  return sxx === 0 ? 0 : points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0) / sxx
}
