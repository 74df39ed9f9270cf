// solidity-coverage (`npm run coverage`): only the project's own production contracts are measured.
module.exports = {
  skipFiles: ["vendor/", "test/", "devnet/"],
  // The routers need via-IR. The instrumented build with the optimizer's default Yul steps ran out of
  // stack in GaslessBatchSwapRouterV2's SPLIT path once the V4 run's end joined `_hop`'s arguments (the
  // real build, optimized, compiles); the minimal IR pipeline (Foundry's --ir-minimum: no Yul optimizer
  // steps, stack allocation on) inlines nothing and compiles. Coverage measures the instrumented code,
  // never gas, so the unoptimized build costs only time.
  irMinimum: true,
};
