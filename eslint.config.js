import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['libs/workflow/src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@nestjs/*', 'mongoose', 'bullmq', 'ioredis', '@modelcontextprotocol/*', 'openai'] }],
    },
  },
  {
    // The pure entry point `#workflow` (index.ts) and the node types it exports stay free of infrastructure.
    files: ['libs/workflow/src/index.ts', 'libs/workflow/src/nodes/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@nestjs/*',
            'mongoose',
            'bullmq',
            'ioredis',
            'openai',
            '../persistence/*',
            '../queue/*',
            '../config/*',
            '../runtime/*',
          ],
        },
      ],
    },
  },
);
