import { createHash } from 'node:crypto';
import type { Config } from '../../config.js';
import { AppError, badRequest } from '../../errors.js';
import { toMicro, type Micro } from '../../wire/money.js';
import { UploadMetadataSchema } from '../../wire/listings.js';
import type { Compression } from '../../scan/scan-archive.js';
import { checkArchiveStructure } from './archive-structure.js';

/**
 * Everything an upload must satisfy before any fee is asked (spec 2.2, 4.3, 8): metadata, file
 * name, archive signature and structure (archive-structure.ts) and size. Codes where the spec is silent: `invalid_metadata`,
 * `unknown_metadata_key`, `invalid_price`, `invalid_file_name`, `missing_file`,
 * `unsupported_archive`, `payload_too_large` (413).
 */

/** The metadata keys the published schema names; any other key is `unknown_metadata_key`. */
export const METADATA_KEYS = UploadMetadataSchema.keyof().options;

export interface ListingMetadata {
  title: string;
  description: string;
  promptSummary: string | null;
  techStack: string;
  /** `prices.USDC` in base units, as the upload schema converted it. */
  price: Micro;
}

export interface ValidUpload {
  metadata: ListingMetadata;
  compression: Compression;
  fileName: string;
  bytes: Buffer;
  sha256: string;
}

/**
 * The published metadata schema (the one OpenAPI and MCP show), as the upload runs it: a null
 * `prompt_summary` is accepted as absent. Its price comes out in base units.
 */
const MetadataSchema = UploadMetadataSchema.extend({
  prompt_summary: UploadMetadataSchema.shape.prompt_summary.unwrap().nullish(),
});

export function parseMetadata(
  raw: unknown,
  config: Pick<Config, 'MIN_PRICE_USDC' | 'MAX_PRICE_USDC'>,
): ListingMetadata {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw badRequest(
        'invalid_metadata',
        'metadata must be a JSON object (multipart: a JSON string)',
      );
    }
  }
  if (value === undefined || value === null)
    throw badRequest('invalid_metadata', 'metadata is required');
  if (typeof value !== 'object' || Array.isArray(value))
    throw badRequest('invalid_metadata', 'metadata must be a JSON object');
  const unknown = Object.keys(value).filter(
    (k) => !(METADATA_KEYS as readonly string[]).includes(k),
  );
  if (unknown.length) {
    throw badRequest(
      'unknown_metadata_key',
      `unknown metadata keys: ${unknown.join(', ')} (allowed: ${METADATA_KEYS.join(', ')})`,
    );
  }
  const parsed = MetadataSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // the price's refusals say themselves what a price must be (wire/listings.ts, wire/money.ts)
    if (issue.path[0] === 'prices') throw badRequest('invalid_price', issue.message);
    const field = issue.path.join('.') || 'metadata';
    const msg =
      issue.code === 'invalid_type' && issue.input === undefined
        ? `${field} is required`
        : issue.message;
    throw badRequest('invalid_metadata', msg);
  }
  const m = parsed.data;
  const price = m.prices.USDC;
  if (price < toMicro(config.MIN_PRICE_USDC) || price > toMicro(config.MAX_PRICE_USDC)) {
    const range = `between ${config.MIN_PRICE_USDC} and ${config.MAX_PRICE_USDC}`;
    throw badRequest('invalid_price', `prices.USDC must be ${range}`);
  }
  return {
    title: m.title,
    description: m.description,
    promptSummary: m.prompt_summary ? m.prompt_summary : null,
    techStack: m.tech_stack,
    price,
  };
}

/** A `compression` the client sent (JSON key or multipart field): zip, tar.gz or tgz, else 400. */
export function parseCompression(value: unknown): Compression {
  if (value === 'zip') return 'zip';
  if (value === 'tar.gz' || value === 'tgz') return 'tar.gz';
  throw badRequest('unsupported_archive', 'compression must be zip, tar.gz or tgz');
}

/** Compression named by a file name's extension, or undefined. */
export function compressionOfName(name: string): Compression | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.zip')) return 'zip';
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  return undefined;
}

export function checkFileName(name: string | undefined, compression: Compression): string {
  if (!name)
    throw badRequest(
      'invalid_file_name',
      'the file part needs a file name ending in .zip, .tar.gz or .tgz',
    );
  // eslint-disable-next-line no-control-regex
  if (name.length > 255 || /[\u0000-\u001f\u007f/\\]/.test(name) || name.startsWith('.')) {
    throw badRequest(
      'invalid_file_name',
      'file name must be a plain name (no path, no control characters, at most 255 characters)',
    );
  }
  const byName = compressionOfName(name);
  if (!byName) throw badRequest('invalid_file_name', 'file name must end in .zip, .tar.gz or .tgz');
  if (byName !== compression)
    throw badRequest(
      'invalid_file_name',
      `file name says ${byName} but compression is ${compression}`,
    );
  return name;
}

/** The first bytes must be what the compression claims: zip local header (or empty zip) / gzip. */
export function checkSignature(bytes: Buffer, compression: Compression): void {
  if (bytes.length === 0) throw badRequest('unsupported_archive', 'the archive is empty');
  const ok =
    compression === 'zip'
      ? bytes.length >= 4 && [0x504b0304, 0x504b0506].includes(bytes.readUInt32BE(0))
      : bytes.length >= 3 && bytes[0] === 0x1f && bytes[1] === 0x8b && bytes[2] === 8;
  if (!ok) throw badRequest('unsupported_archive', `the file is not a ${compression} archive`);
}

export function tooLarge(max: number): AppError {
  return new AppError('payload_too_large', { message: `the archive exceeds ${max} bytes` });
}

export async function finishUpload(
  input: {
    metadata: unknown;
    compression: Compression;
    fileName: string | undefined;
    bytes: Buffer;
  },
  config: Pick<Config, 'MIN_PRICE_USDC' | 'MAX_PRICE_USDC' | 'MAX_ARCHIVE_BYTES'>,
): Promise<ValidUpload> {
  const metadata = parseMetadata(input.metadata, config);
  const fileName = checkFileName(input.fileName, input.compression);
  if (input.bytes.length > config.MAX_ARCHIVE_BYTES) throw tooLarge(config.MAX_ARCHIVE_BYTES);
  checkSignature(input.bytes, input.compression);
  await checkArchiveStructure(input.bytes, input.compression);
  return {
    metadata,
    compression: input.compression,
    fileName,
    bytes: input.bytes,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The JSON encoding: `{ compression, file: <base64>, metadata }`. */
export async function parseJsonUpload(
  body: unknown,
  config: Pick<Config, 'MIN_PRICE_USDC' | 'MAX_PRICE_USDC' | 'MAX_ARCHIVE_BYTES'>,
): Promise<ValidUpload> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw badRequest('invalid_request', 'body must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknownKeys = Object.keys(b).filter(
    (k) => !['compression', 'file', 'metadata', 'file_name'].includes(k),
  );
  if (unknownKeys.length)
    throw badRequest('invalid_request', `unknown body fields: ${unknownKeys.join(', ')}`);
  const compression = parseCompression(b.compression ?? 'zip');
  if (typeof b.file !== 'string' || b.file.length === 0)
    throw badRequest('missing_file', 'file must be the base64 archive');
  const file = b.file.replace(/\s+/g, '');
  if (Math.floor((file.length * 3) / 4) - 2 > config.MAX_ARCHIVE_BYTES)
    throw tooLarge(config.MAX_ARCHIVE_BYTES);
  if (file.length % 4 !== 0 || !BASE64.test(file))
    throw badRequest('invalid_file', 'file is not valid base64');
  const fileName =
    typeof b.file_name === 'string'
      ? b.file_name
      : compression === 'zip'
        ? 'archive.zip'
        : 'archive.tar.gz';
  // Metadata first: a malformed listing is refused before its (possibly large) file is decoded.
  parseMetadata(b.metadata, config);
  return finishUpload(
    { metadata: b.metadata, compression, fileName, bytes: Buffer.from(file, 'base64') },
    config,
  );
}
