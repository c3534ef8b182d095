import { tierConfig } from './vitest.tiers.js';

// `npm run test:system` (vitest.tiers.ts).
export default tierConfig('system');
