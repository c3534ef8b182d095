// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { ALLOWED_IMPORTS, LAYERS } from './scripts/layers.mjs';

/**
 * One block per folder of src/: a relative import that reaches a folder it may not use
 * (scripts/layers.mjs) is an error, so the shape in docs/architecture.md cannot drift back.
 * `node scripts/import-graph.mjs` prints the graph and also checks for cycles.
 */
const layerRules = LAYERS.map((layer) => {
  const forbidden = LAYERS.filter(
    (other) => other !== layer && !ALLOWED_IMPORTS[layer]?.includes(other),
  );
  const pure = layer === 'core' || layer === 'format';
  return {
    files: [`src/${layer}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...(forbidden.length > 0
              ? [
                  {
                    regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
                    message: `src/${layer}/ may import only ${ALLOWED_IMPORTS[layer]?.join(', ') || 'nothing of src/'} (scripts/layers.mjs, docs/architecture.md).`,
                  },
                ]
              : []),
            // The checkpoint engine's outside users go through its index (the engine's files are
            // its own to rearrange), or where.ts: its paths alone, for what must start fast.
            ...(layer !== 'checkpoint' && ALLOWED_IMPORTS[layer]?.includes('checkpoint')
              ? [
                  {
                    regex: '^(\\.\\./)+checkpoint/(?!(index|where)\\.js$)',
                    message: `import the checkpoint engine through src/checkpoint/index.ts, or its paths through where.ts (docs/architecture.md).`,
                  },
                ]
              : []),
            ...(pure
              ? [
                  {
                    regex: '^(node:|execa$|ink$|react$)',
                    message: `src/${layer}/ is pure: no I/O, processes or UI (docs/architecture.md).`,
                  },
                ]
              : []),
          ],
        },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'action/dist/**',
      'node_modules/**',
      'coverage/**',
      'test/fixtures/openspec-repo/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  ...layerRules,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
