// Saving text as a file from the page (mnote serve, where Go cannot show a
// save dialog): a Blob and a temporary <a download>.

/** A file name without folders or control characters ("export" when nothing is left). */
export function safeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean && clean !== '.' && clean !== '..' ? clean : 'export';
}

/** Starts the browser's download of `content` as `filename`. */
export function downloadText(filename: string, mime: string, content: string): void {
  const blob = new Blob([content], { type: mime || 'application/octet-stream' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = safeFilename(filename);
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.appendChild(a);
  try {
    a.click();
  } finally {
    a.remove();
    // The download has its own reference by then; a little later is safe.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}
