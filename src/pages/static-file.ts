import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';

/** The media types of the files the pages serve. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

export const mediaTypeOf = (file: string): string => TYPES[extname(file)] ?? 'application/octet-stream';

/** A file as one answer: its bytes, or only that the client's copy is current. */
export type FileRead =
  | { readonly kind: 'current'; readonly etag: string }
  | { readonly kind: 'bytes'; readonly etag: string; readonly bytes: Uint8Array }
  | { readonly kind: 'missing' };

/**
 * Reads a file for one request: nothing is held between requests (the pages' files cost no memory
 * until asked for, and a browser keeps them by their ETag). The ETag is the file's size and
 * modification time, so an edited or upgraded file gets a new one; `ifNoneMatch` that names it
 * reads nothing (RFC 9110 §13.1.2).
 */
export async function readStatic(file: string, ifNoneMatch: string | undefined): Promise<FileRead> {
  let info;
  try {
    info = await stat(file);
  } catch {
    return { kind: 'missing' };
  }
  if (!info.isFile()) return { kind: 'missing' };
  const etag = `"${info.size.toString(36)}-${Math.trunc(info.mtimeMs).toString(36)}"`;
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, etag)) return { kind: 'current', etag };
  try {
    return { kind: 'bytes', etag, bytes: await readFile(file) };
  } catch {
    return { kind: 'missing' };
  }
}

/** Whether an If-None-Match list names the tag (weak comparison, RFC 9110 §8.8.3.2), or is `*`. */
function matches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
