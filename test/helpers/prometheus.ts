/** One sample's value from the Prometheus text format; 0 when the series does not exist (yet). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelPart = line.startsWith(`${name}{`) ? line.slice(name.length + 1, line.indexOf('}')) : '';
    const have = labelPart ? labelPart.split(',') : [];
    if (want.every((w) => have.includes(w)) && (want.length > 0 || have.length === 0)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
