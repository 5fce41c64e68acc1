/** A size as people read it in error messages: `512 bytes`, `64 KB`, `3.5 MB`, `5 GB` (binary units). */
export function formatBytes(n: number): string {
  const units: [number, string][] = [
    [1024 ** 4, 'TB'],
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) if (n >= size) return `${+(n / size).toFixed(1)} ${unit}`;
  return `${n} bytes`;
}
