import { expect } from "chai";
import hre from "hardhat";
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Abi, type AbiItem, type Hex } from "viem";

let errorAbiCache: Abi | undefined;

/** Every custom error declared by a compiled contract, so revert data from any of them decodes. */
async function projectErrorAbi(): Promise<Abi> {
  if (errorAbiCache === undefined) {
    const seen = new Map<string, AbiItem>();
    for (const name of await hre.artifacts.getAllFullyQualifiedNames()) {
      for (const item of (await hre.artifacts.readArtifact(name)).abi as AbiItem[]) {
        if (item.type !== "error") continue;
        seen.set(`${item.name}(${item.inputs.map((input) => input.type).join(",")})`, item);
      }
    }
    errorAbiCache = [...seen.values()];
  }
  return errorAbiCache;
}

/** The raw revert data carried somewhere along a failed call's cause chain. */
export function revertDataOf(error: unknown): Hex | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 12 && current !== undefined && current !== null; depth++) {
    const data = (current as { data?: unknown }).data;
    if (typeof data === "string" && /^0x[0-9a-fA-F]*$/.test(data)) return data as Hex;
    if (data && typeof data === "object") {
      const nested = (data as { data?: unknown }).data;
      if (typeof nested === "string" && /^0x[0-9a-fA-F]*$/.test(nested)) return nested as Hex;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The custom error (name and arguments) that a failed call or transaction reverted with. */
export async function revertOf(error: unknown): Promise<{ errorName: string; args: readonly unknown[] }> {
  if (error instanceof BaseError) {
    const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    if (reverted?.data) return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
  }
  const data = revertDataOf(error);
  expect(data, `expected revert data, got: ${error instanceof Error ? error.message : String(error)}`).to.be.a("string");
  const decoded = decodeErrorResult({ abi: await projectErrorAbi(), data: data! });
  return { errorName: decoded.errorName, args: decoded.args ?? [] };
}

/** Asserts that `action` reverts with the custom error `errorName` (and exactly `args`, when given). */
export async function expectRevert(action: Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<void> {
  let caught: unknown;
  try {
    await action;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected a revert with ${errorName}, but the call succeeded`).to.not.equal(undefined);
  const revert = await revertOf(caught);
  expect(revert.errorName).to.equal(errorName);
  if (args !== undefined) expect(revert.args).to.deep.equal(args);
}
