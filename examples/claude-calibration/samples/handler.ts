import { createHash } from 'node:crypto';
import type { Request, Response } from './http.js';

const MAX_PART_BYTES = 5 * 1024 * 1024;

/** Accepts one part of a multipart upload and answers with the part's checksum. */
export async function uploadPart(request: Request, response: Response): Promise<void> {
  const uploadId = request.params.uploadId;
  const partNumber = Number.parseInt(request.params.part ?? '', 10);
  if (!uploadId || !Number.isSafeInteger(partNumber) || partNumber < 1 || partNumber > 10_000) {
    response.status(400).json({ error: 'part must be an integer from 1 to 10000' });
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.length;
    if (size > MAX_PART_BYTES) {
      response.status(413).json({ error: `a part holds at most ${MAX_PART_BYTES} bytes` });
      return;
    }
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const checksum = createHash('sha256').update(body).digest('hex');
  await request.store.putPart(uploadId, partNumber, body);
  response.status(200).json({ uploadId, partNumber, size, checksum });
}
