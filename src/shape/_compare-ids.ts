/** Id order: ids made only of digits compare as numbers ("2" before "10"), others as code points. */
export function compareIds(a: string, b: string): number {
  const numeric = /^\d+$/;
  if (numeric.test(a) && numeric.test(b)) {
    const left = a.replace(/^0+(?=\d)/, '');
    const right = b.replace(/^0+(?=\d)/, '');
    if (left.length !== right.length) return left.length - right.length;
    if (left !== right) return left < right ? -1 : 1;
  }
  return a < b ? -1 : a > b ? 1 : 0;
}
