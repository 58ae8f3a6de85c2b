// What model calls cost: the bundled price table (dated, sourced), a config's prices over it,
// the USD of a usage, and the worst case of a call a budget must allow for.
export { PRICE_TABLE, REQUEST_OVERHEAD_TOKENS, checkBudget, findPrice, formatUsd, sumUsd, usageUsd, worstCaseUsd, type ModelPrice, type PriceFigures, type PriceRecord } from './_prices.js';
export { parsePrices } from './_config-prices.js';
