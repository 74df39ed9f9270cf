import { AbiFunctionSignatureNotFoundError, decodeAbiParameters, slice, toFunctionSelector, type Abi, type AbiFunction, type DecodeFunctionDataReturnType, type Hex } from "viem";

/**
 * viem's `decodeFunctionData` over `abi`, with the ABI's selectors computed once. viem finds the
 * function by hashing every function of the ABI on each call: on the relayer's path (each relay's
 * calldata decoded for its gas limit, its batch and its checks) that hashing was a fifth of the
 * process's busy CPU at 200 relays a second (`bench:relayer` with CPU_PROF_DIR). Decodes, and refuses an
 * unknown selector (AbiFunctionSignatureNotFoundError) or malformed arguments, as viem does.
 */
export function functionDataDecoder<const abi extends Abi>(abi: abi): (data: Hex) => DecodeFunctionDataReturnType<abi> {
  const bySelector = new Map<string, AbiFunction>();
  for (const item of abi) if (item.type === "function") bySelector.set(toFunctionSelector(item), item);
  return (data) => {
    // As viem slices and compares: the selector as given (an upper-case one matches nothing).
    const selector = slice(data, 0, 4);
    const item = bySelector.get(selector);
    if (item === undefined) throw new AbiFunctionSignatureNotFoundError(selector, { docsPath: "/docs/contract/decodeFunctionData" });
    const args = item.inputs.length > 0 ? decodeAbiParameters(item.inputs, slice(data, 4)) : undefined;
    return { functionName: item.name, args } as DecodeFunctionDataReturnType<abi>;
  };
}
