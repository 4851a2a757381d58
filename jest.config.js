// Two projects: `spec` (pure units, no Redis) and `conformance` (a real
// redis-server, started once by the global setup). Type checking runs before
// Jest in `npm test` (`tsc --noEmit`); ts-jest transpiles each file on its own,
// which is what NodeNext modules require.
const transform = {
  '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
};
const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform,
  testEnvironment: 'node',
};

export default {
  projects: [
    { ...shared, displayName: 'spec', testMatch: ['<rootDir>/spec/**/*.spec.ts'] },
    {
      ...shared,
      displayName: 'conformance',
      testMatch: ['<rootDir>/conformance/**/*.spec.ts'],
      globalSetup: '<rootDir>/conformance/harness/global-setup.js',
      globalTeardown: '<rootDir>/conformance/harness/global-teardown.js',
      setupFilesAfterEnv: ['<rootDir>/conformance/harness/after-env.ts'],
    },
  ],
};
