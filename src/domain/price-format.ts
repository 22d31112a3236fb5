// A price as notices write it ("1,234.5", up to six decimals). One formatter
// for the process: toLocaleString with options builds a new one on each call,
// which cost more than the rest of a bet's opening notice.
const PRICE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 6 });

export function formatPrice(p: number): string {
  return PRICE.format(p);
}
