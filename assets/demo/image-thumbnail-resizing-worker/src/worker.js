import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Worker } from 'bullmq';
import sharp from 'sharp';

const s3 = new S3Client({});
const WIDTHS = [160, 480, 1024];
const FORMATS = [
  { ext: 'webp', type: 'image/webp', encode: (img) => img.webp({ quality: 80 }) },
  { ext: 'jpg', type: 'image/jpeg', encode: (img) => img.jpeg({ quality: 82, mozjpeg: true }) },
];

async function download(bucket, key) {
  const res = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await res.Body.transformToByteArray());
}

export function thumbnailKey(key, width, ext) {
  const base = key.replace(/\.[^./]+$/, '');
  return `thumbnails/${base}-${width}.${ext}`;
}

export async function makeThumbnails({ bucket, key }) {
  const original = await download(bucket, key);
  const meta = await sharp(original).metadata();
  const written = [];
  for (const width of WIDTHS) {
    if (meta.width && meta.width < width) continue; // never upscale
    for (const f of FORMATS) {
      const body = await f.encode(sharp(original).rotate().resize({ width, withoutEnlargement: true })).toBuffer();
      const target = thumbnailKey(key, width, f.ext);
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: target,
          Body: body,
          ContentType: f.type,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
      written.push(target);
    }
  }
  return written;
}

const worker = new Worker('thumbnails', async (job) => makeThumbnails(job.data), {
  connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  concurrency: Number(process.env.CONCURRENCY ?? 4),
});
worker.on('completed', (job, result) => console.log(`job ${job.id}: ${result.length} thumbnails`));
worker.on('failed', (job, err) => console.error(`job ${job?.id} failed: ${err.message}`));
