// Statistics of experiment and routing figures: intervals of rates, a paired test, a bootstrap, and the seeded PRNG they and routing's catalogs draw from.
export { Z_95, wilsonInterval } from './_wilson.js';
export { mcnemarExact } from './_mcnemar.js';
export { DEFAULT_BOOTSTRAP, bootstrapReductionInterval, ratioReduction, type BootstrapSettings, type PairedSums } from './_bootstrap.js';
export { Xorshift32, seededShuffle, streamFor } from './_prng.js';
