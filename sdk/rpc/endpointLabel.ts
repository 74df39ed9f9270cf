/** An endpoint's name in metrics and logs: its host only (a provider's URL often carries its API key in the path). */
export function endpointLabel(url: string): string {
  return new URL(url).host;
}

/** Each URL's label, a repeated host numbered (`host`, `host#2`) so two endpoints never share one series. */
export function endpointLabels(urls: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return urls.map((url) => {
    const host = endpointLabel(url);
    const count = (seen.get(host) ?? 0) + 1;
    seen.set(host, count);
    return count === 1 ? host : `${host}#${count}`;
  });
}
