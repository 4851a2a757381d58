// ESLint: typescript-eslint's type-aware rules for lib/, scripts and tests,
// plus eslint-plugin-jest so a test without an assertion, or a focused or
// skipped test, is an error.
import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'coverage/',
      'node_modules/',
      '.scratch/',
      '.dist-*/',
      'site/',
      'examples/.out/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            'scripts/*.js',
            'scripts/bench/*.js',
            'scripts/bench/lib/*.js',
            'scripts/chaos/*.js',
            'scripts/chaos/lib/*.js',
            'conformance/harness/*.js',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        globalThis: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unnecessary-condition': [
        'error',
        { allowConstantLoopConditions: true },
      ],
      // Label maps come from users at runtime: defensive checks against null are intended.
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      '@typescript-eslint/no-confusing-void-expression': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // the dashboard's script runs in the browser
    files: ['lib/dashboard/assets/*.js'],
    languageOptions: {
      globals: {
        document: 'readonly',
        window: 'readonly',
        location: 'readonly',
        fetch: 'readonly',
        EventSource: 'readonly',
        CSS: 'readonly',
      },
    },
  },
  {
    files: ['spec/**/*.ts', 'conformance/**/*.ts'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*'] }],
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/valid-expect': 'error',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
