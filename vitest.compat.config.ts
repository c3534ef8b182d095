import { tierConfig } from './vitest.tiers.js';

// `npm run test:compat` (vitest.tiers.ts).
export default tierConfig('compat');
