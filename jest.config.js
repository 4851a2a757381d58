// Two projects: `spec` (pure units, no Redis) and `conformance` (a real
// redis-server, started once by the global setup). Type checking runs before
// Jest in `npm test` (`tsc --noEmit`); ts-jest transpiles each file on its own,
// which is what NodeNext modules require. REDIS_CLUSTER=1 / REDIS_ACL=1 run
// the conformance files on a Redis Cluster / as a restricted ACL user, leaving
// out the files conformance/harness/modes.js names.
import { excluded, harnessMode } from './conformance/harness/modes.js';

const mode = harnessMode();
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
      testPathIgnorePatterns: [
        '/node_modules/',
        ...Object.keys(mode === 'single' ? {} : excluded[mode]).map(
          (file) => `/conformance/${file.replace(/\./g, '\\.')}$`,
        ),
      ],
      globalSetup: '<rootDir>/conformance/harness/global-setup.js',
      globalTeardown: '<rootDir>/conformance/harness/global-teardown.js',
      setupFilesAfterEnv: ['<rootDir>/conformance/harness/after-env.ts'],
    },
  ],
};
