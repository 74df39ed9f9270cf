// solidity-coverage (`npm run coverage`): only the project's own production contracts are measured.
module.exports = {
  skipFiles: ["vendor/", "test/", "devnet/"],
  // The routers need via-IR ("stack too deep" otherwise); solidity-coverage then compiles the
  // instrumented sources with the optimizer's Yul settings below.
  configureYulOptimizer: true,
  // solc 0.8.28's default Yul step sequence without the FullInliner (`i`; "gvif" becomes "gvf") and without
  // the ":fDnTOcmu" cleanup part (Permit2's solc 0.8.17 cannot parse ':'). With the inliner,
  // the instrumented routers ran out of stack once the SPLIT path (`_split`/`_runLeg`) was inlined into
  // RouteExecutor's route loop ("var_actions_length is 1 too deep"). Kept apart, every function fits and
  // the stack-limit evader handles the rest (all inline assembly is memory-safe). Coverage build only:
  // the deployed bytecode keeps the default sequence.
  solcOptimizerDetails: {
    yul: true,
    yulDetails: {
      stackAllocation: true,
      optimizerSteps: "dhfoDgvulfnTUtnIf[xa[r]EscLMVcul[j]Tpeulxa[rul]xa[r]cLgvfCTUca[r]LSsTFOtfDnca[r]Iulc]jmul[jul]VcTOculjmul",
    },
  },
};
