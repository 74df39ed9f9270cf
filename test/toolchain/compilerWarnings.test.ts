import { expect } from "chai";
import hre from "hardhat";
import { TASK_COMPILE_SOLIDITY_LOG_COMPILATION_ERRORS } from "hardhat/builtin-tasks/task-names";

/** What console.warn and console.error printed while `run` ran. */
async function printedBy(run: () => Promise<unknown>): Promise<string> {
  const printed: string[] = [];
  const { warn, error } = console;
  console.warn = (...args: unknown[]) => void printed.push(args.join(" "));
  console.error = (...args: unknown[]) => void printed.push(args.join(" "));
  try {
    await run();
  } finally {
    console.warn = warn;
    console.error = error;
  }
  return printed.join("\n");
}

const warning = (errorCode: string, file: string, text: string) => ({
  severity: "warning",
  errorCode,
  sourceLocation: { file, start: 0, end: 1 },
  formattedMessage: `Warning: ${text}\n  --> ${file}`,
});

describe("compiler output", () => {
  it("does not print the reviewed transient-storage warning of AllowanceHolder, but still prints every other warning", async () => {
    const output = {
      errors: [
        warning("2394", "contracts/allowance/AllowanceHolder.sol", "Transient storage as defined by EIP-1153 can break the composability"),
        warning("2394", "contracts/routers/Other.sol", "Transient storage elsewhere"),
        warning("2072", "contracts/allowance/AllowanceHolder.sol", "Unused local variable"),
      ],
    };
    const printed = await printedBy(() => hre.run(TASK_COMPILE_SOLIDITY_LOG_COMPILATION_ERRORS, { output, quiet: true }));
    expect(printed).to.not.include("composability");
    expect(printed).to.include("Transient storage elsewhere").and.include("Unused local variable");
  });
});
