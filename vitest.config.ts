import { tierConfig } from './vitest.tiers.js';

// `npm test`: the contributor tier (vitest.tiers.ts).
export default tierConfig('contributor');
