/**
 * True when a protected resource metadata document's `resource` covers `serverKey`: the same origin
 * and a path that is the server's own or a parent of it (RFC 9728 section 3.3 wants it to match the
 * URL the metadata was found for; a parent path is what servers publish for several endpoints).
 */
export function resourceCovers(resource: string, serverKey: string): boolean {
  let published: URL;
  let server: URL;
  try {
    published = new URL(resource);
    server = new URL(serverKey);
  } catch {
    return false;
  }
  if (published.origin !== server.origin || published.search !== '' || published.hash !== '') return false;
  const base = published.pathname.endsWith('/') ? published.pathname : `${published.pathname}/`;
  return server.pathname === published.pathname || server.pathname.startsWith(base);
}
