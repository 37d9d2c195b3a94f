// Small preferences kept in localStorage (absent in private mode: the
// defaults apply and nothing is kept).

export function readPref(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writePref(key: string, v: string): void {
  try {
    localStorage.setItem(key, v);
  } catch {
    /* private mode */
  }
}

export function readBool(key: string, dflt: boolean): boolean {
  const v = readPref(key);
  return v === null ? dflt : v === '1';
}

export function writeBool(key: string, v: boolean): void {
  writePref(key, v ? '1' : '0');
}

export function readNumber(key: string, dflt: number): number {
  const v = Number(readPref(key));
  return readPref(key) !== null && Number.isFinite(v) ? v : dflt;
}
