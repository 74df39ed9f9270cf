// solidity-coverage (`npm run coverage`): only the project's own production contracts are measured.
module.exports = {
  skipFiles: ["vendor/", "test/", "devnet/"],
  // The routers need via-IR ("stack too deep" otherwise); solidity-coverage then compiles the
  // instrumented sources with the optimizer's Yul settings below.
  configureYulOptimizer: true,
};
