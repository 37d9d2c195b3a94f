// Images a prompt carries (API.md "sessions.prompt", images): the limits
// Go checks, checked here first so the composer can say why at once.

/** An image can be at most this many bytes. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** A prompt can carry at most this many images. */
export const MAX_IMAGES = 10;
/** The types a prompt takes (told by their first bytes, as Go does). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** The image type of bytes by their magic numbers, '' when none of IMAGE_TYPES. */
export function sniffImage(b: Uint8Array): string {
  const at = (i: number, s: string) => [...s].every((c, k) => b[i + k] === c.charCodeAt(0));
  // i18n-ignore: magic numbers
  if (b.length >= 8 && b[0] === 0x89 && at(1, 'PNG\r\n\x1a\n')) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && at(0, 'RIFF') && at(8, 'WEBP')) return 'image/webp';
  return '';
}

/** Why an image cannot go: too big, not one of the types, one too many. */
export type ImageProblem = 'too_big' | 'type' | 'too_many';

/** An image read and checked, ready to send. */
export interface ReadImage {
  mimeType: string;
  /** base64 */
  data: string;
  size: number;
  name: string;
}

/** base64 of bytes (in chunks: a spread of 5 MB overflows the stack). */
export function toBase64(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/** Reads a file as an image for a prompt that already carries `count`. */
export async function readImage(file: Blob & { name?: string }, count: number): Promise<ReadImage | ImageProblem> {
  if (count >= MAX_IMAGES) return 'too_many';
  if (file.size > MAX_IMAGE_BYTES) return 'too_big';
  const bytes = new Uint8Array(await file.arrayBuffer());
  const mimeType = sniffImage(bytes);
  if (!mimeType) return 'type';
  return { mimeType, data: toBase64(bytes), size: bytes.length, name: file.name ?? '' };
}

/** The files of a paste or a drop (clipboard items of kind file, else its files). */
export function filesOf(dt: DataTransfer | null | undefined): File[] {
  if (!dt) return [];
  const out: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f) out.push(f);
  }
  if (out.length === 0) out.push(...Array.from(dt.files ?? []));
  return out;
}
