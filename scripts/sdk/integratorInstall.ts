/**
 * The integrator's install line, the one fact the docs print and the package test runs verbatim
 * (test/client/sdkPackage.test.ts checks that every documented copy is this line, then installs it).
 *
 * Each package is pinned to the major that works together: unpinned, `typescript` resolves TypeScript 7
 * and `@types/node` a current major, and ts-node 10 crashes under TypeScript 7 ("Cannot read
 * properties of undefined (reading 'fileExists')"). viem is the version the package is tested with.
 */
export const SDK_TARBALL_PLACEHOLDER = "<checkout>/dist/token-swap-sdk-0.1.0.tgz";

export const INTEGRATOR_INSTALL_LINE = `npm install ${SDK_TARBALL_PLACEHOLDER} viem@2.57.1 ethers@6.16.0 typescript@5 ts-node@10 @types/node@20`;
