import { tierConfig } from './vitest.tiers.js';

// `npm run test:slow` (vitest.tiers.ts).
export default tierConfig('slow');
