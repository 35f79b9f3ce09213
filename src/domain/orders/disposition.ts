import { create as contentDisposition } from 'content-disposition';

/**
 * The `Content-Disposition` of a download, for any file name a seller could have sent (spec 4.3
 * keeps it as given): RFC 6266 through the jshttp `content-disposition` package, which writes the
 * name as `filename*=UTF-8''…` (RFC 5987/8187 percent-encoding, so the header stays valid bytes
 * whatever the name holds) whenever it is not plain ASCII, beside a `filename` fallback for clients
 * that read only that one. The fallback is ours: printable ASCII only, accents folded (é → e),
 * anything else `_` (the package's `?` is not a legal file name on Windows), quotes and
 * backslashes escaped by the package.
 */
export function attachmentDisposition(fileName: string): string {
  return contentDisposition(fileName, { type: 'attachment', fallback: asciiFallback(fileName) });
}

export function asciiFallback(fileName: string): string {
  const folded = fileName.normalize('NFKD').replace(/\p{M}/gu, '');
  // one `_` per code point (not per UTF-16 unit), so an emoji is one character, not two
  return Array.from(folded, (c) => (c >= ' ' && c <= '~' ? c : '_')).join('');
}
